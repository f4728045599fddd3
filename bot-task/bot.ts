// One bot's life: join the room, transcribe, watch the exit reasons, then leave → save → hand over (bot-life.ts).

import { setTimeout as sleep } from 'node:timers/promises';
import { automaticLeaveOf } from '../core/bots/automatic-leave';
import { BotLife } from '../core/bots/lifecycle';
import { canReplace } from '../core/bots/replace-bot';
import { currentAttempt, recordsAudio } from '../core/bots/session';
import type { Logger } from '../core/log';
import { JoinAbortedError, type RoomConnection } from '../core/ports/room-provider';
import type { ExitReason } from '../core/schemas/api';
import { defaultRecordingNotice } from '../core/schemas/bot-config';
import { transcriptionLanguageFor } from '../core/transcription-languages';
import { timedOut, within } from '../core/within';
import { withActivityFallback } from './audio-activity-fallback';
import {
  afterLeaving,
  askForReplacement,
  type BotContext,
  type BotOutcome,
  type Ending,
  emitStep,
  joinAborted,
  joinedRoom,
  joinFailedWith,
  liveTranscriptSender,
  waitingRoomTimeoutMs,
} from './bot-life';
import { ConversationController, turnTakingSettings } from './conversation';
import { type RecordingUploader, startRecording } from './recording-uploader';
import { SessionWarnings } from './session-warnings';
import { TranscriptRecorder } from './transcript-recorder';
import { forceLeaveWatcher } from './watchers/force-leave';
import { idleTimeoutWatcher } from './watchers/idle-timeout';
import { maxDurationWatcher } from './watchers/max-duration';
import { participantLeftWatcher } from './watchers/participant-left';
import { stopPhraseWatcher } from './watchers/stop-phrase';
import { transcriptionWatcher } from './watchers/transcription';
import type { Watcher } from './watchers/watcher';

export type { BotContext, BotOutcome } from './bot-life';
export { liveTranscriptSender } from './bot-life';

/** A replacement that finds nobody in the room gives them this long to show up before it ends participant_left. */
const emptyRoomGraceMs = 2_000;

export async function runBot(ctx: BotContext): Promise<BotOutcome> {
  const { session, stores, config, log } = ctx;
  const botId = session.botId;
  let joinStarted = Date.now();
  const replacing = ctx.attempt > 0;
  const life = new BotLife(replacing ? 'replacing' : 'joining', botId);
  const live = liveTranscriptSender(ctx);
  const recorder = new TranscriptRecorder(botId, stores, config.TRANSCRIPT_FLUSH_MS, log, ctx.attempt, live);
  // Flushed before the hand-over: the results stage reads the session's warnings.
  const warnings = new SessionWarnings(botId, stores.sessions, log, session.warnings);
  if (replacing)
    await recorder.restore().catch((err) => log.warn('could not read the saved transcript', { err }));
  // The leave endpoint's request, read from its own small item every STOP_POLL_MS rather than the whole session item.
  const stopRequested = async () =>
    Boolean(ctx.sessionEnded?.()) || (await stores.sessions.stopRequested(botId));

  // A stop asked for while the bot is still joining (or in a waiting room) gives the join up at once.
  const joinAbort = new AbortController();
  const pollFailed = (err: unknown) => log.warn('session poll failed', { err });
  const stopWhileJoining = forceLeaveWatcher(
    stopRequested,
    config.STOP_POLL_MS,
    () => joinAbort.abort(),
    pollFailed,
  );
  void ctx.terminated.then(() => joinAbort.abort());

  let room: RoomConnection;
  try {
    if (!replacing) {
      await untilJoinAt(session.joinAt, joinAbort.signal);
      joinStarted = Date.now();
      void emitStep(ctx, life.step('announce', {}), {
        event: 'bot.joining',
        data: { room_url: session.roomUrl },
      });
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
      recording: recordsAudio(session),
      onWaitingRoom: () => {
        log.info('in the waiting room; asked to be let in');
        // Once per task: the event's key is the attempt, so a second report would be dropped anyway.
        if (life.can('wait_in_lobby'))
          void emitStep(ctx, life.step('wait_in_lobby', {}), {
            event: 'bot.in_waiting_room',
            key: String(ctx.attempt),
            data: { timeout_seconds: Math.round(waitingRoomTimeoutMs(session, config) / 1000) },
          });
        ctx.onWaitingRoom?.();
      },
      signal: joinAbort.signal,
    });
  } catch (err) {
    return err instanceof JoinAbortedError
      ? joinAborted(ctx, life, joinStarted)
      : joinFailedWith(ctx, life, err, joinStarted);
  } finally {
    stopWhileJoining.stop();
  }
  log.info('joined the room', {
    join_ms: Date.now() - joinStarted,
    participants: room.participants().length,
  });
  ctx.onJoined?.();
  joinedRoom(ctx, life, recorder);

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
  const recording = recordsAudio(session)
    ? await startRecording({
        room,
        store: ctx.recordings,
        botId,
        attempt: ctx.attempt,
        pieceMs: config.RECORDING_PIECE_MS,
        log,
        onWarning: (w) => warnings.add(w),
      })
    : undefined;
  const heard = withActivityFallback(room, config.AUDIO_LEVELS_MISSING_MS, log);
  const conversation = new ConversationController(
    heard,
    ctx.conversation,
    {
      botName: session.botConfig.name,
      prompt: session.botConfig.bot_prompt,
      greeting: session.botConfig.bot_greeting,
      replacement: replacing,
      ...(recording &&
        session.botConfig.recording_notice !== false && {
          notice: session.botConfig.recording_notice_text ?? defaultRecordingNotice,
        }),
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
    /** Stopped by the platform: the replacement takes over, and no exit reason is this bot's to decide. */
    let handingOver = false;
    const watchers: Watcher[] = [];
    // Once handing over, whatever ends the bot's time in the room ends it as handed over.
    const end = (e: Ending) => {
      if (decided) return;
      decided = true;
      for (const w of watchers) w.stop();
      resolve(handingOver ? { kind: 'handed_over' } : e);
    };
    const exit = (reason: ExitReason) => end({ kind: 'exit', reason });
    watchers.push(
      participantLeftWatcher(room, exit, {
        everyoneLeftTimeoutMs: leave.everyone_left_timeout_seconds * 1000,
        ...(replacing && { emptyRoomGraceMs }),
      }),
      stopPhraseWatcher(room, session.botConfig.stop_phrase, exit),
      idleTimeoutWatcher(heard, leave.silence_timeout_seconds * 1000, exit),
      maxDurationWatcher(maxDurationMs, exit),
      forceLeaveWatcher(stopRequested, config.STOP_POLL_MS, exit, pollFailed),
      transcriptionWatcher(room, config.TRANSCRIPTION_RECOVERY_MS, (what) =>
        end({
          kind: 'failed',
          error: `the room's transcription is unavailable: ${what}`,
          code: 'transcription_unavailable',
        }),
      ),
    );

    const handOverTo = async (replacementAsked: boolean) => {
      handingOver = true;
      // The replacement continues the conversation; this bot only keeps transcribing until it is in.
      conversation.stop();
      void recorder.flush().catch(() => {});
      if (!replacementAsked) await askForReplacement(ctx, 'stopped by the platform (SIGTERM)', true);
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
        await sleep(config.STOP_POLL_MS);
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
  // The recorder lives in the room's page: its last piece is taken before the page leaves.
  const recordingSettled = recording && (await finishRecording(recording, config.LEAVE_TIMEOUT_MS, log));
  // A bot handing over leaves its transcription running for its replacement, but only one seen in the room: after a
  // failed handover (no replacement in time, the session already over) nobody would own it, so it is stopped.
  const leaving = room.leave({ keepTranscription: ending.kind === 'handed_over' && replacementInRoom });
  await Promise.race([leaving, new Promise((r) => setTimeout(r, config.LEAVE_TIMEOUT_MS))]).catch((err) =>
    log.warn('leave failed', { err }),
  );
  const leftAt = new Date().toISOString();
  log.info('left the room', { ending: ending.kind, leave_ms: Date.now() - triggeredAt });
  // Once handed over, the session's data may be deleted: an upload still under way must have settled by then.
  await recordingSettled?.settled;
  await warnings.flush();
  return afterLeaving(ctx, life, ending, leftAt, recorder);
}

/** Waits at most `timeoutMs` for the last pieces; `settled`: when the upload the bot stopped waiting for is over. */
async function finishRecording(
  recording: RecordingUploader,
  timeoutMs: number,
  log: Logger,
): Promise<{ settled: Promise<void> }> {
  const started = Date.now();
  if ((await within(recording.finish(), timeoutMs)) === timedOut) {
    log.warn('the recording did not finish in time; its last piece may be missing');
    return { settled: recording.abandon() };
  }
  log.info('recording finished', { finish_ms: Date.now() - started });
  return { settled: Promise.resolve() };
}

/** A bot given its session ahead of join_at joins then; a stop meanwhile ends the wait as it ends a join. */
async function untilJoinAt(joinAt: string | undefined, signal: AbortSignal): Promise<void> {
  const waitMs = joinAt ? Date.parse(joinAt) - Date.now() : 0;
  if (waitMs > 0) await sleep(waitMs, undefined, { signal }).catch(() => {});
  if (signal.aborted) throw new JoinAbortedError();
}
