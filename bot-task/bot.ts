// One bot's life: join the room, transcribe, watch the exit reasons, then leave → save → hand over results.

import { automaticLeaveOf } from '../core/bots/automatic-leave';
import { failSession } from '../core/bots/finish-session';
import { startColdRequest } from '../core/bots/pool-fallback';
import { canReplace, failBotInRoom, failLostBot, replaceRequest } from '../core/bots/replace-bot';
import { type BotSession, currentAttempt } from '../core/bots/session';
import type { Utterance } from '../core/bots/transcript';
import type { Config } from '../core/config';
import { joinFailed, type LifecycleEventMessage, lifecycleEvent } from '../core/control/messages';
import type { Outbox } from '../core/control/outbox';
import type { Stores } from '../core/deps';
import { subscribes } from '../core/events/registry';
import type { Logger } from '../core/log';
import { metrics } from '../core/metrics';
import type { ConversationEngine } from '../core/ports/conversation-engine';
import {
  JoinAbortedError,
  type RoomConnection,
  RoomJoinError,
  type RoomProvider,
} from '../core/ports/room-provider';
import { sessionEnded } from '../core/results/messages';
import type { ExitReason } from '../core/schemas/api';
import type { BotFailedErrorCode } from '../core/schemas/webhooks';
import { transcriptionLanguageFor } from '../core/transcription-languages';
import { withActivityFallback } from './audio-activity-fallback';
import { ConversationController, turnTakingSettings } from './conversation';
import { joinTimes } from './heartbeat';
import { SessionWarnings } from './session-warnings';
import { TranscriptRecorder } from './transcript-recorder';
import { forceLeaveWatcher } from './watchers/force-leave';
import { idleTimeoutWatcher } from './watchers/idle-timeout';
import { maxDurationWatcher } from './watchers/max-duration';
import { participantLeftWatcher } from './watchers/participant-left';
import { stopPhraseWatcher } from './watchers/stop-phrase';
import { transcriptionWatcher } from './watchers/transcription';
import type { Watcher } from './watchers/watcher';

export interface BotContext {
  session: BotSession;
  stores: Pick<Stores, 'sessions' | 'ledger' | 'transcripts'>;
  config: Config;
  provider: RoomProvider;
  conversation: ConversationEngine;
  /** Where its messages go: events and failures (bot-events queue), requests (control), the hand-over (results). */
  outbox: Outbox;
  log: Logger;
  /**
   * Resolves when the task is told to stop (SIGTERM). Sent by our leave endpoint (the session holds the stop
   * request): force_leave. Otherwise the platform is taking the machine back (Spot, scale-in, the local stack
   * shutting down): a warning — the bot asks for its replacement and hands over.
   */
  terminated: Promise<void>;
  /** Which task of the session this is (BOT_ATTEMPT): 0 the first, n the n-th replacement of a lost bot. */
  attempt: number;
  /** The bot was put in the room's waiting room and asked to be let in (`bot.in_waiting_room`). */
  onWaitingRoom?: () => void;
  /** The bot is in the room (a pooled bot's runner refills the pool only now: local/task-runner.ts). */
  onJoined?: () => void;
  /** The heartbeat found the session ended by someone else (it writes the session, so it learns that for free). */
  sessionEnded?: () => boolean;
}

export type BotOutcome =
  | { kind: 'join_failed'; error: RoomJoinError }
  | { kind: 'ended'; exitReason: ExitReason; leftAt: string }
  /** A replacement took over (this bot was stopped by the platform): its lines are saved, the session goes on. */
  | { kind: 'handed_over' }
  /** Out of the room by accident (crash, connection lost): a replacement is asked for; the task exits non-zero. */
  | { kind: 'lost'; reason: string }
  /**
   * The session ended failed (removed from the room while people remain; no replacement could rejoin or is left; the
   * room's transcription unavailable).
   */
  | { kind: 'failed'; error: string };

/** How the bot's time in the room ends. */
type Ending =
  | { kind: 'exit'; reason: ExitReason }
  | { kind: 'handed_over' }
  | { kind: 'lost'; reason: string }
  /** `code`: a failure we can name (bot_failed error_code); such a bot heard nobody and is not charged. */
  | { kind: 'failed'; error: string; code?: BotFailedErrorCode };

/** A replacement that finds nobody in the room gives them this long to show up before it ends participant_left. */
const emptyRoomGraceMs = 2_000;

export async function runBot(ctx: BotContext): Promise<BotOutcome> {
  const { session, stores, config, log } = ctx;
  const botId = session.botId;
  let joinStarted = Date.now();
  const replacing = ctx.attempt > 0;
  const live = liveTranscriptSender(ctx);
  const recorder = new TranscriptRecorder(botId, stores, config.TRANSCRIPT_FLUSH_MS, log, ctx.attempt, live);
  // What the bot had to do without (a failed model or voice): on the session before the results stage reads it.
  const warnings = new SessionWarnings(botId, stores.sessions, log, session.warnings);
  // A replacement learns where the transcript (and so the conversation) stands before it is in the room.
  if (replacing)
    await recorder.restore().catch((err) => log.warn('could not read the saved transcript', { err }));
  // The leave endpoint's request, read from its own small item every STOP_POLL_MS rather than the whole session item.
  const stopRequested = async () =>
    Boolean(ctx.sessionEnded?.()) || (await stores.sessions.stopRequested(botId));

  // A stop asked for while the bot is still joining (up to JOIN_TIMEOUT_MS, then in a waiting room up to its
  // timeout) is honoured at once: the join is given up and the bot ends with force_leave, like any other stop.
  const joinAbort = new AbortController();
  const stopWhileJoining = forceLeaveWatcher(
    stopRequested,
    config.STOP_POLL_MS,
    () => joinAbort.abort(),
    (err) => log.warn('session poll failed', { err }),
  );
  void ctx.terminated.then(() => joinAbort.abort());

  let room: RoomConnection;
  try {
    if (!replacing) {
      await untilJoinAt(session.joinAt, joinAbort.signal);
      joinStarted = Date.now();
      void sendBotEvent(ctx, { event: 'bot.joining', data: { room_url: session.roomUrl } });
    }
    room = await ctx.provider.join({
      roomUrl: session.roomUrl,
      meetingToken: session.meetingToken,
      botName: session.botConfig.name,
      videoMode: session.botConfig.video_mode,
      backgroundImageUrl: session.botConfig.background_image_url,
      voice: session.botConfig.voice,
      transcription: {
        language: session.botConfig.language ?? transcriptionLanguageFor(session.botConfig.voice),
        retryMs: config.TRANSCRIPTION_RETRY_MS,
        endpointingMs: config.TRANSCRIPTION_ENDPOINTING_MS,
        interimResults: config.TRANSCRIPTION_INTERIM_RESULTS,
      },
      timeoutMs: config.JOIN_TIMEOUT_MS,
      waitingRoomTimeoutMs: waitingRoomTimeoutMs(session, config),
      onWaitingRoom: () => {
        log.info('in the waiting room; asked to be let in');
        void sendBotEvent(ctx, {
          event: 'bot.in_waiting_room',
          key: String(ctx.attempt),
          data: { timeout_seconds: Math.round(waitingRoomTimeoutMs(session, config) / 1000) },
        });
        ctx.onWaitingRoom?.();
      },
      signal: joinAbort.signal,
    });
  } catch (err) {
    if (err instanceof JoinAbortedError) {
      // Decided once, on the session itself (strongly consistent): the leave writes it before it signals the task, so
      // a SIGTERM right after a leave is never taken for the platform's (the polled stop item may lag by a second).
      const platformStop = await stores.sessions.get(botId).then(
        (s) => s?.status === 'running' && !s.stopRequestedAt,
        () => false,
      );
      if (platformStop && replacing) {
        // The platform stopped a replacement before it was in: the session still needs a bot.
        const reason = 'the replacement was stopped by the platform while rejoining';
        await retry(
          () => ctx.outbox.send(replaceRequest(botId, { attempt: ctx.attempt, reason, alive: false })),
          3,
          log,
        );
        return { kind: 'lost', reason };
      }
      if (platformStop && session.startPath === 'pool' && session.claimedBy) {
        // The platform stopped a pooled bot between its claim and the room (the pool's scale-in or a deploy chose
        // it before its protection took hold): the session goes to a cold start, as when a claimant dies — the
        // claim moves only from this bot, only while nobody is in the room.
        const reason = 'the pooled bot was stopped by the platform before it was in the room';
        log.warn(reason);
        await retry(() => ctx.outbox.send(startColdRequest(botId, reason, session.claimedBy)), 3, log);
        return { kind: 'lost', reason };
      }
      if (platformStop) {
        // A cold bot stopped by its platform before it got in (a Spot interruption, the local stack shutting down):
        // nobody asked it to leave, so not force_leave — a bot that never got into the room.
        const error = new RoomJoinError(
          'unknown',
          'the bot was stopped by its platform before it got into the room',
        );
        log.warn(error.message);
        await reportJoinFailure(ctx, error, (Date.now() - joinStarted) / 1000);
        return { kind: 'join_failed', error };
      }
      log.info('asked to stop while joining; gave up the join');
      return handOver(ctx, 'force_leave', new Date().toISOString(), null);
    }
    const error =
      err instanceof RoomJoinError
        ? err
        : new RoomJoinError('unknown', err instanceof Error ? err.message : String(err));
    if (replacing) {
      // The bot was in this room before: a replacement that cannot get back (the room is gone, the meeting over)
      // ends the session failed with what was transcribed, not with bot_join_failed.
      const message = `the replacement could not rejoin the room (${error.type}): ${error.providerMessage}`;
      log.warn(message);
      await failLostBot(ctx, session, message);
      return { kind: 'failed', error: message };
    }
    await reportJoinFailure(ctx, error, (Date.now() - joinStarted) / 1000);
    return { kind: 'join_failed', error };
  } finally {
    stopWhileJoining.stop();
  }
  log.info('joined the room', {
    join_ms: Date.now() - joinStarted,
    participants: room.participants().length,
  });
  ctx.onJoined?.();
  const joinedAt = new Date().toISOString();
  if (replacing) {
    // The bot it replaces (if still there, handing over) leaves once this is written.
    void retry(() => stores.sessions.updateReplacement(botId, ctx.attempt - 1, { joinedAt }), 5, log).catch(
      (err) => log.warn('could not record that the replacement is in the room', { err }),
    );
    // The lost bot may have saved lines while this one was joining.
    void recorder.restore().catch((err) => log.warn('could not re-read the saved transcript', { err }));
  } else {
    void sendBotEvent(ctx, { event: 'bot.in_call', data: {} });
    metrics.botInRoom(session.createdAt);
    // In the room: from now on the bot's minutes are charged, also if it dies (task-stopped reads joinedAt). If
    // this write fails, the heartbeat (heartbeat.ts) carries the join time on every beat until it is written.
    joinTimes.joined(botId, joinedAt);
    void retry(() => stores.sessions.updateRunning(botId, { joinedAt }), 3, log).then(
      () => joinTimes.recorded(botId, joinedAt),
      (err) => log.warn('could not record the join time; the heartbeat retries it', { err }),
    );
  }

  room.on('utterance', (u) => {
    if (!u.final || !u.text.trim()) return;
    const isBot = u.participantId === room.selfId;
    recorder.add({
      speaker: isBot ? session.botConfig.name : u.name,
      participant_id: u.participantId,
      started_at: u.at,
      text: u.text.trim(),
      ...(isBot ? { is_bot: true } : {}),
    });
  });
  recorder.start();
  // What turn-taking, barge-in and the idle timer read: the room, with audio activity from transcription timing while
  // the provider's audio levels are missing.
  const heard = withActivityFallback(room, config.AUDIO_LEVELS_MISSING_MS, log);
  const conversation = new ConversationController(
    heard,
    ctx.conversation,
    {
      botName: session.botConfig.name,
      prompt: session.botConfig.bot_prompt,
      greeting: session.botConfig.bot_greeting,
      ...turnTakingSettings(config),
      maxModelFailures: config.CONVERSATION_MODEL_MAX_FAILURES,
      retryBackoffMs: config.CONVERSATION_RETRY_BACKOFF_MS,
      speechRetryDelayMs: config.SPEECH_RETRY_DELAY_MS,
    },
    () => recorder.utterances,
    log,
    { onWarning: (w) => warnings.add(w), inForce: session.warnings },
  );
  conversation.start();

  const leave = automaticLeaveOf(session.botConfig, config);
  // The safety cap counts from when the first bot got in, not from this replacement's join.
  const inRoomSince = replacing && session.joinedAt ? Date.parse(session.joinedAt) : Date.now();
  const maxDurationMs = Math.max(0, leave.max_duration_seconds * 1000 - (Date.now() - inRoomSince));

  /** The replacement's joinedAt was seen: only then is there a bot left to use (and stop) this one's transcription. */
  let replacementInRoom = false;
  const ending = await new Promise<Ending>((resolve) => {
    let decided = false;
    /** Told to stop by the platform: the replacement takes over, and no exit reason is this bot's to decide. */
    let handingOver = false;
    const watchers: Watcher[] = [];
    const end = (e: Ending) => {
      if (decided) return;
      decided = true;
      for (const w of watchers) w.stop();
      resolve(e);
    };
    const exit = (reason: ExitReason) =>
      end(handingOver ? { kind: 'handed_over' } : { kind: 'exit', reason });
    watchers.push(
      participantLeftWatcher(room, exit, {
        everyoneLeftTimeoutMs: leave.everyone_left_timeout_seconds * 1000,
        ...(replacing && { emptyRoomGraceMs }),
      }),
      stopPhraseWatcher(room, session.botConfig.stop_phrase, exit),
      idleTimeoutWatcher(heard, leave.silence_timeout_seconds * 1000, exit),
      maxDurationWatcher(maxDurationMs, exit),
      forceLeaveWatcher(stopRequested, config.STOP_POLL_MS, exit, (err) =>
        log.warn('session poll failed', { err }),
      ),
      transcriptionWatcher(room, config.TRANSCRIPTION_RECOVERY_MS, (what) =>
        end(
          handingOver
            ? { kind: 'handed_over' }
            : {
                kind: 'failed',
                error: `the room's transcription is unavailable: ${what}`,
                code: 'transcription_unavailable',
              },
        ),
      ),
    );

    const handOverTo = async (replacementAsked: boolean) => {
      handingOver = true;
      // The replacement continues the conversation; this bot only keeps transcribing until it is in.
      conversation.stop();
      void recorder.flush().catch(() => {});
      if (!replacementAsked) {
        const reason = 'stopped by the platform (SIGTERM)';
        await retry(
          () => ctx.outbox.send(replaceRequest(botId, { attempt: ctx.attempt, reason, alive: true })),
          5,
          log,
        ).catch((err) => log.error('could not ask for a replacement; the task-stopped path will', { err }));
      }
      log.warn('stopped by the platform; handing over to a replacement', { attempt: ctx.attempt });
      const deadline = Date.now() + config.REPLACEMENT_HANDOFF_MS;
      while (!decided && Date.now() < deadline) {
        const current = await stores.sessions.get(botId).catch(() => undefined);
        if (current === null || (current && current.status !== 'running')) break;
        if (current?.replacements?.[ctx.attempt]?.joinedAt) {
          log.info('the replacement is in the room; leaving');
          replacementInRoom = true;
          break;
        }
        await new Promise((r) => setTimeout(r, config.STOP_POLL_MS));
      }
      if (!replacementInRoom) log.warn('leaving before the replacement was seen in the room');
      end({ kind: 'handed_over' });
    };

    void ctx.terminated.then(async () => {
      if (decided) return;
      const current = await stores.sessions.get(botId).catch(() => null);
      // Our leave endpoint asked (or the session is over, or cannot be read): force_leave, as always.
      if (current?.status !== 'running' || current.stopRequestedAt || current.leftAt) {
        return exit('force_leave');
      }
      if (currentAttempt(current) > ctx.attempt) return handOverTo(true);
      if (!canReplace(current, config)) {
        return end({
          kind: 'failed',
          error: 'the bot was stopped by the platform and no replacement is left',
        });
      }
      return handOverTo(false);
    });

    room.on('disconnected', ({ kind, reason }) => {
      log.warn('disconnected from the room', { kind, reason });
      if (handingOver) return end({ kind: 'handed_over' });
      switch (kind) {
        case 'room_ended':
          // The meeting is over: nobody is left to talk to, the same outcome as the last person leaving.
          return exit('participant_left');
        case 'ejected': {
          // Removed by the room's owner: the end of the meeting for the bot only when nobody is left anyway.
          const people = room.participants().filter((p) => !p.isBot && p.participantId !== room.selfId);
          return people.length === 0
            ? exit('participant_left')
            : end({ kind: 'failed', error: 'removed from the room' });
        }
        case 'connection_lost':
        case 'crashed':
          // Not the meeting's end: the provider's own reconnection gave up; a replacement rejoins.
          return end({ kind: 'lost', reason: `${kind.replace('_', ' ')}: ${reason}` });
      }
    });
  });

  // Exit pipeline (ARCHITECTURE.md): leave first, then save, then hand over.
  const triggeredAt = Date.now();
  conversation.stop();
  // A bot handing over leaves its transcription running for its replacement, but only one seen in the room: after a
  // failed handover (no replacement in time, the session already over) nobody would own it, so it is stopped.
  const leaving = room.leave({ keepTranscription: ending.kind === 'handed_over' && replacementInRoom });
  await Promise.race([leaving, new Promise((r) => setTimeout(r, config.LEAVE_TIMEOUT_MS))]).catch((err) =>
    log.warn('leave failed', { err }),
  );
  const leftAt = new Date().toISOString();
  log.info('left the room', { ending: ending.kind, leave_ms: Date.now() - triggeredAt });
  await warnings.flush();
  switch (ending.kind) {
    case 'exit':
      return handOver(ctx, ending.reason, leftAt, recorder);
    case 'handed_over':
      await retry(() => recorder.stop(), 5, log);
      return { kind: 'handed_over' };
    case 'lost': {
      await retry(() => recorder.stop(), 3, log).catch((err) => log.error('transcript not saved', { err }));
      const request = replaceRequest(botId, { attempt: ctx.attempt, reason: ending.reason, alive: false });
      await retry(() => ctx.outbox.send(request), 3, log).catch((err) =>
        log.error('could not ask for a replacement; the task-stopped path will', { err }),
      );
      return { kind: 'lost', reason: ending.reason };
    }
    case 'failed':
      await retry(() => recorder.stop(), 5, log);
      if (ending.code === 'transcription_unavailable') {
        // Loud: the customer learns it from the status, bot_failed and its error_code; operators from
        // the metric and this line. A bot that could hear nobody costs nothing.
        metrics.transcriptionUnavailable();
        log.error('transcription unavailable; the bot left', {
          error_code: ending.code,
          error: ending.error,
        });
        // Retried: lost, this write would leave the task-stopped path to fail the session charged and without its
        // code. A repeat sends nothing twice (failSession acts only on a running session).
        await retry(
          () => failBotInRoom(ctx, session, { error: ending.error, chargeUsage: false, code: ending.code }),
          3,
          log,
        );
      } else await failLostBot(ctx, session, ending.error);
      return { kind: 'failed', error: ending.error };
  }
}

/**
 * Each saved batch of lines as one `transcript.data` event, when the session's webhook asked for it (at most 250 ms
 * after the line is heard); undefined when it did not.
 */
/**
 * A scheduled bot is given its session ahead of join_at (a pooled bot, or a task started early): it joins at join_at,
 * not before. A stop meanwhile ends the wait as it ends a join (JoinAbortedError).
 */
async function untilJoinAt(joinAt: string | undefined, signal: AbortSignal): Promise<void> {
  const waitMs = joinAt ? Date.parse(joinAt) - Date.now() : 0;
  if (waitMs > 0)
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, waitMs);
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(timer);
          resolve();
        },
        { once: true },
      );
    });
  if (signal.aborted) throw new JoinAbortedError();
}

export function liveTranscriptSender(
  ctx: Pick<BotContext, 'session' | 'outbox' | 'log' | 'attempt'>,
): ((lines: { line: Utterance; seq: number }[]) => void) | undefined {
  const { session } = ctx;
  if (!session.webhookUrl || !subscribes(session.webhookEvents, 'transcript.data')) return undefined;
  return (lines) =>
    void sendBotEvent(ctx, {
      event: 'transcript.data',
      key: `${ctx.attempt}.${lines[0]!.seq}`,
      data: {
        utterances: lines.map(({ line, seq }) => ({
          speaker: line.speaker,
          participant_id: line.participant_id,
          text: line.text,
          started_at: line.started_at,
          seq,
          is_bot: Boolean(line.is_bot),
        })),
      },
    });
}

/** The end of the exit pipeline: record the exit, save the transcript, hand over to the results stage. */
async function handOver(
  ctx: BotContext,
  exitReason: ExitReason,
  leftAt: string,
  recorder: TranscriptRecorder | null,
): Promise<BotOutcome> {
  const { stores, log } = ctx;
  const botId = ctx.session.botId;
  // Queued before the hand-over below: bot.done, which the results stage causes, then comes after it in the bot's order.
  const left = sendBotEvent(ctx, {
    event: 'bot.left',
    detail: exitReason,
    data: { exit_reason: exitReason },
  });
  // The transcript is saved even if recording the exit fails; the task-stopped path then hands over instead.
  const recorded = retry(() => stores.sessions.updateRunning(botId, { exitReason, leftAt }), 5, log);
  if (recorder) await retry(() => recorder.stop(), 5, log);
  await recorded;
  await left;
  await retry(() => ctx.outbox.send(sessionEnded(botId, exitReason, leftAt)), 5, log);
  return { kind: 'ended', exitReason, leftAt };
}

async function reportJoinFailure(ctx: BotContext, error: RoomJoinError, triedSeconds: number) {
  const { session, stores, config, log } = ctx;
  metrics.joinFailed(error.type);
  log.warn('could not join the room', {
    error_type: error.type,
    error_code: error.code,
    error_message: error.providerMessage,
  });
  await failSession({ ...stores, config }, session.botId, {
    error: `the bot could not join the room (${error.type}): ${error.providerMessage}`,
    chargeUsage: false,
    errorCode: error.code,
  });
  const message = joinFailed(session, {
    type: error.type,
    message: error.providerMessage,
    code: error.code,
    durationSeconds: triedSeconds,
  });
  await retry(() => ctx.outbox.send(message), 5, log);
}

/** How long the bot waits in a waiting room to be let in: bot_config.automatic_leave.waiting_room_timeout_seconds. */
function waitingRoomTimeoutMs(session: BotSession, config: Config): number {
  return automaticLeaveOf(session.botConfig, config).waiting_room_timeout_seconds * 1000;
}

/**
 * Tells the control plane a step of the bot's life: it records the status change and sends the webhook event when
 * asked for. In the background: the bot never waits for it, and its loss loses no result. Resolves once it is queued
 * (or given up).
 */
export function sendBotEvent(
  ctx: Pick<BotContext, 'session' | 'outbox' | 'log'>,
  e: Pick<LifecycleEventMessage, 'event' | 'data' | 'key' | 'detail'>,
): Promise<void> {
  const message = lifecycleEvent(ctx.session, e);
  return retry(() => ctx.outbox.send(message), 3, ctx.log).catch((err) =>
    ctx.log.warn('could not send a lifecycle event', { event: e.event, err }),
  );
}

/** Retries a step whose loss would lose results (transcript save, queue hand-over) with short backoff. */
async function retry(step: () => Promise<unknown>, attempts: number, log: Logger): Promise<void> {
  for (let i = 1; ; i++) {
    try {
      await step();
      return;
    } catch (err) {
      if (i >= attempts) throw err;
      log.warn('step failed; retrying', { attempt: i, err });
      await new Promise((r) => setTimeout(r, 200 * 2 ** i));
    }
  }
}
