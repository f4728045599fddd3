// The steps of one bot's life (getting in, failing to, leaving, handing over), each through core/bots/lifecycle.ts.
import { automaticLeaveOf } from '../core/bots/automatic-leave';
import { failSession } from '../core/bots/finish-session';
import type { BotLife, Emitted, Step } from '../core/bots/lifecycle';
import { startColdRequest } from '../core/bots/pool-fallback';
import { failBotInRoom, failLostBot, replaceRequest } from '../core/bots/replace-bot';
import type { BotSession } from '../core/bots/session';
import type { Utterance } from '../core/bots/transcript';
import type { Config } from '../core/config';
import { joinFailed, type LifecycleEventMessage, lifecycleEvent } from '../core/control/messages';
import type { Outbox } from '../core/control/outbox';
import type { Stores } from '../core/deps';
import { subscribes } from '../core/events/registry';
import type { Logger } from '../core/log';
import { metrics } from '../core/metrics';
import type { ConversationEngine } from '../core/ports/conversation-engine';
import type { RecordingStore } from '../core/ports/recordings';
import { RoomJoinError, type RoomProvider } from '../core/ports/room-provider';
import { sessionEnded } from '../core/results/messages';
import { retry } from '../core/retry';
import type { ExitReason } from '../core/schemas/api';
import type { BotFailedErrorCode } from '../core/schemas/webhooks';
import { joinTimes } from './heartbeat';
import type { TranscriptRecorder } from './transcript-recorder';

export interface BotContext {
  session: BotSession;
  stores: Pick<Stores, 'sessions' | 'ledger' | 'transcripts' | 'accounts' | 'retention'>;
  config: Config;
  provider: RoomProvider;
  conversation: ConversationEngine;
  /** Where the recording's pieces go: set for a session that records (start request recording.audio). */
  recordings?: RecordingStore;
  /** Where its messages go: events and failures (bot-events queue), requests (control), the hand-over (results). */
  outbox: Outbox;
  log: Logger;
  /**
   * SIGTERM: from our leave endpoint (the session holds the stop request), force_leave; otherwise the platform taking
   * the machine back (Spot, scale-in, the local stack shutting down), and the bot hands over to a replacement.
   */
  terminated: Promise<void>;
  /** Which task of the session this is (BOT_ATTEMPT): 0 the first, n the n-th replacement of a lost bot. */
  attempt: number;
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
  | { kind: 'failed'; error: string };

export type Ending =
  | { kind: 'exit'; reason: ExitReason }
  | { kind: 'handed_over' }
  | { kind: 'lost'; reason: string }
  /** `code`: a failure we can name (bot_failed error_code); such a bot heard nobody and is not charged. */
  | { kind: 'failed'; error: string; code?: BotFailedErrorCode };

/** Sends the lifecycle event of `step`; an event the step does not emit is a bug in the caller, refused. */
export function emitStep(
  ctx: Pick<BotContext, 'session' | 'outbox' | 'log'>,
  step: Step,
  e: Pick<LifecycleEventMessage, 'event' | 'data' | 'key' | 'detail'>,
): Promise<void> {
  if (!step.emits.includes(e.event as Emitted))
    throw new Error(`${step.transition} (from ${step.from}) does not emit ${e.event}`);
  return sendBotEvent(ctx, e);
}

/** In the room: the first bot records its join (charged from now), a replacement its own (the lost bot then leaves). */
export function joinedRoom(ctx: BotContext, life: BotLife, recorder: TranscriptRecorder): void {
  const { session, stores, log } = ctx;
  const botId = session.botId;
  const joinedAt = new Date().toISOString();
  if (ctx.attempt > 0) {
    if (session.transcriptAt) recorder.sessionMarked(Promise.resolve(true));
    const { replacement } = life.step('rejoin', { attempt: ctx.attempt, joinedAt });
    void retryStep(
      () => stores.sessions.updateReplacement(botId, replacement!.index, replacement!.set),
      5,
      log,
    ).catch((err) => log.warn('could not record that the replacement is in the room', { err }));
    // The lost bot may have saved lines while this one was joining.
    void recorder.restore().catch((err) => log.warn('could not re-read the saved transcript', { err }));
    return;
  }
  const step = life.step('admit', { joinedAt });
  void emitStep(ctx, step, { event: 'bot.in_call', data: {} });
  metrics.botInRoom(session.createdAt);
  // Charged from now, also if the bot dies (task-stopped reads joinedAt); a failed write is the heartbeat's to retry.
  joinTimes.joined(botId, joinedAt);
  const written = retryStep(() => stores.sessions.writeStep(botId, step), 3, log);
  // The same write marks the session's transcript (`transcriptAt`): the recorder's first save waits for it.
  recorder.sessionMarked(written);
  void written.then(
    () => joinTimes.recorded(botId, joinedAt),
    (err) => log.warn('could not record the join time; the heartbeat retries it', { err }),
  );
}

/**
 * The join was given up: asked to stop through the API (force_leave), or stopped by the platform — then a replacement
 * is asked for again, a pooled bot's session falls back to a cold start, and a cold bot failed to join.
 */
export async function joinAborted(ctx: BotContext, life: BotLife, joinStarted: number): Promise<BotOutcome> {
  const { session, stores, log } = ctx;
  const botId = session.botId;
  // Decided once, on the session itself (strongly consistent): the leave writes it before it signals the task, so
  // a SIGTERM right after a leave is never taken for the platform's (the polled stop item may lag by a second).
  const platformStop = await stores.sessions.get(botId).then(
    (s) => s?.status === 'running' && !s.stopRequestedAt,
    () => false,
  );
  if (platformStop && ctx.attempt > 0) {
    // The platform stopped a replacement before it was in: the session still needs a bot.
    const reason = 'the replacement was stopped by the platform while rejoining';
    await askForReplacement(ctx, reason, false);
    return { kind: 'lost', reason };
  }
  if (platformStop && session.startPath === 'pool' && session.claimedBy) {
    // Stopped between its claim and the room (before its protection took hold): a cold start takes the session.
    const reason = 'the pooled bot was stopped by the platform before it was in the room';
    log.warn(reason);
    await retryStep(() => ctx.outbox.send(startColdRequest(botId, reason, session.claimedBy)), 3, log);
    return { kind: 'lost', reason };
  }
  if (platformStop) {
    // Nobody asked it to leave, so not force_leave: a bot that never got into the room.
    const error = new RoomJoinError(
      'unknown',
      'the bot was stopped by its platform before it got into the room',
    );
    log.warn(error.message);
    return reportJoinFailure(ctx, life, error, joinStarted);
  }
  log.info('asked to stop while joining; gave up the join');
  return handOver(ctx, life, 'force_leave', new Date().toISOString(), null);
}

/** The join failed: a replacement that cannot get back ends the session failed, a first bot with bot_join_failed. */
export async function joinFailedWith(
  ctx: BotContext,
  life: BotLife,
  err: unknown,
  joinStarted: number,
): Promise<BotOutcome> {
  const error =
    err instanceof RoomJoinError
      ? err
      : new RoomJoinError('unknown', err instanceof Error ? err.message : String(err));
  if (ctx.attempt === 0) return reportJoinFailure(ctx, life, error, joinStarted);
  const message = `the replacement could not rejoin the room (${error.type}): ${error.providerMessage}`;
  ctx.log.warn(message);
  life.step('fail', { completedAt: new Date().toISOString(), error: message });
  await failLostBot(ctx, ctx.session, message);
  return { kind: 'failed', error: message };
}

/** After the bot left the room: the end its ending calls for. */
export async function afterLeaving(
  ctx: BotContext,
  life: BotLife,
  ending: Ending,
  leftAt: string,
  recorder: TranscriptRecorder,
): Promise<BotOutcome> {
  const { session, log } = ctx;
  switch (ending.kind) {
    case 'exit':
      return handOver(ctx, life, ending.reason, leftAt, recorder);
    case 'handed_over':
      // The replacement's state now: it has the session; this task only saves its lines.
      await retryStep(() => recorder.stop(), 5, log);
      return { kind: 'handed_over' };
    case 'lost': {
      await retryStep(() => recorder.stop(), 3, log).catch((err) =>
        log.error('transcript not saved', { err }),
      );
      await askForReplacement(ctx, ending.reason, false);
      return { kind: 'lost', reason: ending.reason };
    }
    case 'failed':
      await retryStep(() => recorder.stop(), 5, log);
      life.step('fail', {
        completedAt: new Date().toISOString(),
        error: ending.error,
        errorCode: ending.code,
      });
      if (ending.code === 'transcription_unavailable') {
        // A bot that could hear nobody costs nothing.
        metrics.transcriptionUnavailable();
        log.error('transcription unavailable; the bot left', {
          error_code: ending.code,
          error: ending.error,
        });
        // Retried: lost, this write would leave the task-stopped path to fail the session charged and without its
        // code. A repeat sends nothing twice (failSession acts only on a running session).
        await retryStep(
          () => failBotInRoom(ctx, session, { error: ending.error, chargeUsage: false, code: ending.code }),
          3,
          log,
        );
      } else await failLostBot(ctx, session, ending.error);
      return { kind: 'failed', error: ending.error };
  }
}

/** Records the exit, saves the transcript, hands over to the results stage. */
async function handOver(
  ctx: BotContext,
  life: BotLife,
  exitReason: ExitReason,
  leftAt: string,
  recorder: TranscriptRecorder | null,
): Promise<BotOutcome> {
  const { stores, log } = ctx;
  const botId = ctx.session.botId;
  const step = life.step('leave', { exitReason, leftAt });
  // Queued before the hand-over below: bot.done, which the results stage causes, then comes after it in the bot's order.
  const left = emitStep(ctx, step, {
    event: 'bot.left',
    detail: exitReason,
    data: { exit_reason: exitReason },
  });
  // The transcript is saved even if recording the exit fails; the task-stopped path then hands over instead.
  const recorded = retryStep(() => stores.sessions.writeStep(botId, step), 5, log);
  if (recorder) await retryStep(() => recorder.stop(), 5, log);
  await recorded;
  await left;
  await retryStep(() => ctx.outbox.send(sessionEnded(botId, exitReason, leftAt)), 5, log);
  return { kind: 'ended', exitReason, leftAt };
}

/** A bot that never got into the room: the session fails (not charged) and bot_join_failed goes out. */
async function reportJoinFailure(
  ctx: BotContext,
  life: BotLife,
  error: RoomJoinError,
  joinStarted: number,
): Promise<BotOutcome> {
  const { session, stores, config, log } = ctx;
  metrics.joinFailed(error.type);
  log.warn('could not join the room', {
    error_type: error.type,
    error_code: error.code,
    error_message: error.providerMessage,
  });
  const failure = {
    error: `the bot could not join the room (${error.type}): ${error.providerMessage}`,
    chargeUsage: false,
    errorCode: error.code,
  };
  life.step('fail', { completedAt: new Date().toISOString(), ...failure });
  await failSession({ ...stores, config }, session.botId, failure);
  const message = joinFailed(session, {
    type: error.type,
    message: error.providerMessage,
    code: error.code,
    durationSeconds: (Date.now() - joinStarted) / 1000,
  });
  await retryStep(() => ctx.outbox.send(message), 5, log);
  return { kind: 'join_failed', error };
}

/** How long the bot waits in a waiting room to be let in: bot_config.automatic_leave.waiting_room_timeout_seconds. */
export function waitingRoomTimeoutMs(session: BotSession, config: Config): number {
  return automaticLeaveOf(session.botConfig, config).waiting_room_timeout_seconds * 1000;
}

/** Each saved batch of lines as one `transcript.data` event; undefined when the session's webhook did not ask. */
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

/**
 * Tells the control plane a step of the bot's life: it records the status change and sends the webhook event when
 * asked for. In the background: the bot never waits for it, and its loss loses no result. Resolves once it is queued
 * (or given up).
 */
function sendBotEvent(
  ctx: Pick<BotContext, 'session' | 'outbox' | 'log'>,
  e: Pick<LifecycleEventMessage, 'event' | 'data' | 'key' | 'detail'>,
): Promise<void> {
  const message = lifecycleEvent(ctx.session, e);
  return retryStep(() => ctx.outbox.send(message), 3, ctx.log).catch((err) =>
    ctx.log.warn('could not send a lifecycle event', { event: e.event, err }),
  );
}

/** Asks for a replacement of this task (`alive`: it transcribes until that one is in); lost, task-stopped asks. */
export function askForReplacement(ctx: BotContext, reason: string, alive: boolean): Promise<void> {
  const request = replaceRequest(ctx.session.botId, { attempt: ctx.attempt, reason, alive });
  return retryStep(() => ctx.outbox.send(request), 5, ctx.log).catch((err) =>
    ctx.log.error('could not ask for a replacement; the task-stopped path will', { err }),
  );
}

/** Retries a step whose loss would lose results (transcript save, queue hand-over) with short backoff. */
export function retryStep<T>(step: () => Promise<T>, attempts: number, log: Logger): Promise<T> {
  return retry(step, {
    attempts,
    baseMs: 400,
    onRetry: ({ attempt, err }) => log.warn('step failed; retrying', { attempt: attempt + 1, err }),
  });
}
