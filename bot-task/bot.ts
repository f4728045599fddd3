// One bot's life: join the room, transcribe, watch the exit reasons, then leave → save → hand over results.

import { failSession } from '../core/bots/finish-session';
import type { BotSession } from '../core/bots/session';
import type { Config } from '../core/config';
import type { Stores } from '../core/deps';
import type { Logger } from '../core/log';
import type { ConversationEngine } from '../core/ports/conversation-engine';
import type { MessageQueue } from '../core/ports/queue';
import {
  JoinAbortedError,
  type RoomConnection,
  RoomJoinError,
  type RoomProvider,
} from '../core/ports/room-provider';
import type { ResultsMessage } from '../core/results/messages';
import type { ExitReason } from '../core/schemas/api';
import { ConversationController } from './conversation';
import { joinTimes } from './heartbeat';
import { TranscriptRecorder } from './transcript-recorder';
import { forceLeaveWatcher } from './watchers/force-leave';
import { idleTimeoutWatcher } from './watchers/idle-timeout';
import { maxDurationWatcher } from './watchers/max-duration';
import { participantLeftWatcher } from './watchers/participant-left';
import { stopPhraseWatcher } from './watchers/stop-phrase';
import type { Watcher } from './watchers/watcher';

export interface BotContext {
  session: BotSession;
  stores: Pick<Stores, 'sessions' | 'ledger' | 'transcripts'>;
  config: Config;
  provider: RoomProvider;
  conversation: ConversationEngine;
  results: MessageQueue;
  log: Logger;
  /** Resolves when the runner asks the task to stop (SIGTERM): the same exit pipeline as force_leave. */
  terminated: Promise<void>;
}

export type BotOutcome =
  | { kind: 'join_failed'; error: RoomJoinError }
  | { kind: 'ended'; exitReason: ExitReason; leftAt: string };

export async function runBot(ctx: BotContext): Promise<BotOutcome> {
  const { session, stores, config, log } = ctx;
  const botId = session.botId;
  const joinStarted = Date.now();
  const stopRequested = async () => {
    const current = await stores.sessions.get(botId);
    return current?.status !== 'running' || Boolean(current.stopRequestedAt);
  };

  // A stop asked for while the bot is still joining (it may wait up to JOIN_TIMEOUT_MS, e.g. in a lobby) is
  // honoured at once: the join is given up and the bot ends with force_leave, like any other stop.
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
    room = await ctx.provider.join({
      roomUrl: session.roomUrl,
      meetingToken: session.meetingToken,
      botName: session.botConfig.name,
      videoMode: session.botConfig.video_mode,
      backgroundImageUrl: session.botConfig.background_image_url,
      voice: session.botConfig.voice,
      timeoutMs: config.JOIN_TIMEOUT_MS,
      signal: joinAbort.signal,
    });
  } catch (err) {
    if (err instanceof JoinAbortedError) {
      log.info('asked to stop while joining; gave up the join');
      return handOver(ctx, 'force_leave', new Date().toISOString(), null);
    }
    const error =
      err instanceof RoomJoinError
        ? err
        : new RoomJoinError('unknown', err instanceof Error ? err.message : String(err));
    await reportJoinFailure(ctx, error, (Date.now() - joinStarted) / 1000);
    return { kind: 'join_failed', error };
  } finally {
    stopWhileJoining.stop();
  }
  log.info('joined the room', {
    join_ms: Date.now() - joinStarted,
    participants: room.participants().length,
  });
  // In the room: from now on the bot's minutes are charged, also if it dies (task-stopped reads joinedAt). If
  // this write fails, the heartbeat (heartbeat.ts) carries the join time on every beat until it is written.
  const joinedAt = new Date().toISOString();
  joinTimes.joined(botId, joinedAt);
  void retry(() => stores.sessions.updateRunning(botId, { joinedAt }), 3, log).then(
    () => joinTimes.recorded(botId, joinedAt),
    (err) => log.warn('could not record the join time; the heartbeat retries it', { err }),
  );

  const recorder = new TranscriptRecorder(botId, stores, config.TRANSCRIPT_FLUSH_MS, log);
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
  const conversation = new ConversationController(
    room,
    ctx.conversation,
    {
      botName: session.botConfig.name,
      prompt: session.botConfig.bot_prompt,
      greeting: session.botConfig.bot_greeting,
      endOfTurnMs: config.END_OF_TURN_SILENCE_MS,
    },
    () => recorder.utterances,
    log,
  );
  conversation.start();

  const exitReason = await new Promise<ExitReason>((resolve) => {
    let decided = false;
    const watchers: Watcher[] = [];
    const exit = (reason: ExitReason) => {
      if (decided) return;
      decided = true;
      for (const w of watchers) w.stop();
      resolve(reason);
    };
    watchers.push(
      participantLeftWatcher(room, exit),
      stopPhraseWatcher(room, session.botConfig.stop_phrase, exit),
      idleTimeoutWatcher(room, config.IDLE_TIMEOUT_MS, exit),
      maxDurationWatcher(session.botConfig.max_duration_seconds * 1000, exit),
      forceLeaveWatcher(stopRequested, config.STOP_POLL_MS, exit, (err) =>
        log.warn('session poll failed', { err }),
      ),
    );
    void ctx.terminated.then(() => exit('force_leave'));
    // Ejected or the room went away: nobody is left to talk to, the same outcome as the last person leaving.
    room.on('disconnected', ({ reason }) => {
      log.warn('disconnected from the room', { reason });
      exit('participant_left');
    });
  });

  // Exit pipeline (ARCHITECTURE.md §4): leave first, then save, then hand over.
  const triggeredAt = Date.now();
  conversation.stop();
  await Promise.race([room.leave(), new Promise((r) => setTimeout(r, config.LEAVE_TIMEOUT_MS))]).catch(
    (err) => log.warn('leave failed', { err }),
  );
  const leftAt = new Date().toISOString();
  log.info('left the room', { exit_reason: exitReason, leave_ms: Date.now() - triggeredAt });
  return handOver(ctx, exitReason, leftAt, recorder);
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
  // The transcript is saved even if recording the exit fails; the task-stopped path then hands over instead.
  const recorded = retry(() => stores.sessions.updateRunning(botId, { exitReason, leftAt }), 5, log);
  if (recorder) await retry(() => recorder.stop(), 5, log);
  await recorded;
  await retry(
    () =>
      ctx.results.send({
        kind: 'session_ended',
        bot_id: botId,
        exit_reason: exitReason,
        left_at: leftAt,
      } satisfies ResultsMessage),
    5,
    log,
  );
  return { kind: 'ended', exitReason, leftAt };
}

async function reportJoinFailure(ctx: BotContext, error: RoomJoinError, triedSeconds: number) {
  const { session, stores, config, log } = ctx;
  log.warn('could not join the room', { error_type: error.type, error_message: error.providerMessage });
  await failSession({ ...stores, config }, session.botId, {
    error: `the bot could not join the room (${error.type}): ${error.providerMessage}`,
    chargeUsage: false,
  });
  const message: ResultsMessage = {
    kind: 'bot_join_failed',
    bot_id: session.botId,
    event: {
      event_type: 'bot_join_failed',
      bot_id: session.botId,
      workflow_thread_id: session.botId,
      room_url: session.roomUrl,
      error_type: error.type,
      error_message: error.providerMessage,
      timestamp: new Date().toISOString(),
      duration_seconds: Math.round(triedSeconds * 1000) / 1000,
    },
  };
  await retry(() => ctx.results.send(message), 5, log);
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
