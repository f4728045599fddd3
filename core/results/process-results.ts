// The results stage: a bot's hand-over becomes a completed session (Q&A pairs, insights, credits settled), its
// e-mail, and a session_completed message to the bot-events queue, which sends bot.done and session_complete after
// the bot's earlier events (core/control/); a recorded session that failed gets its recording assembled all the same.
// A recorded session completes in two steps, each its own message: the hand-over saves the insights and queues
// assemble_recording, which assembles the recording and completes the session, so a timeout while assembling never
// runs the model again. Every step is idempotent, so a duplicate or redelivered message completes nothing twice and
// sends nothing twice.

import { completeSession } from '../bots/finish-session';
import { plan, stateOf, type TransitionInputs } from '../bots/lifecycle';
import { type BotSession, type RecordingFileInfo, recordsAudio } from '../bots/session';
import { transcriptText, type Utterance } from '../bots/transcript';
import type { Config } from '../config';
import type { Outbox } from '../control/outbox';
import { scheduleDelivery } from '../delivery/deliver';
import { sessionCompletePayload } from '../delivery/payloads';
import type { Stores } from '../deps';
import { analyseLocally } from '../engines/rules/insights/local-engine';
import type { Logger } from '../log';
import { renderResultsEmail } from '../mail/results-email';
import { metrics } from '../metrics';
import { type InsightsEngine, InsightsError } from '../ports/insights-engine';
import type { MessageQueue } from '../ports/queue';
import type { RecordingStore } from '../ports/recordings';
import { finaliseRecording } from '../recording/finalise';
import { assembleRecording, type ResultsMessage } from './messages';

type SessionEnded = Extract<ResultsMessage, { kind: 'session_ended' | 'assemble_recording' }>;

export interface ResultsDeps {
  stores: Pick<Stores, 'sessions' | 'ledger' | 'transcripts' | 'deliveries' | 'accounts' | 'retention'>;
  config: Pick<Config, 'CREDITS_PER_MINUTE' | 'RETENTION_DAYS'>;
  /**
   * Where session_completed goes (the bot-events queue: bot.done and session_complete in the bot's order), and a
   * recorded session's assemble_recording (the results queue).
   */
  outbox: Outbox;
  insights: InsightsEngine;
  /** Where the bots uploaded their recordings' pieces; needed only by sessions that record. */
  recordings?: RecordingStore;
  deliveryQueue: MessageQueue;
  log: Logger;
  now: () => Date;
  /** Called after each message is processed (the local stack keeps a short list for tests and the dev). */
  onProcessed?: (message: ResultsMessage) => void;
}

/** A retryable insights failure (throttling) is retried by the queue this many times before completing without. */
export const insightsDeliveryAttempts = 3;

/** What the model (or the rules) made of the transcript: saved on the session as it completes, or before. */
type Results = TransitionInputs['save_results'];

export async function processResults(
  deps: ResultsDeps,
  message: ResultsMessage,
  receiveCount = 1,
): Promise<void> {
  if (message.kind === 'session_failed') await assembleFailedRecording(deps, message.bot_id);
  else await complete(deps, message, receiveCount);
  deps.onProcessed?.(message);
}

async function complete(deps: ResultsDeps, message: SessionEnded, receiveCount: number): Promise<void> {
  const log = deps.log.child({ bot_id: message.bot_id });
  let session = await deps.stores.sessions.get(message.bot_id);
  if (!session) {
    log.warn('results for an unknown session');
    return;
  }
  // The segments are the transcript's only copy: insights, session_complete and the e-mail all read them here.
  const utterances = await deps.stores.transcripts.load(message.bot_id);
  if (session.status === 'running') {
    const records = recordsAudio(session);
    // Saved by an earlier receipt (a recorded session's first step): never made again.
    const saved = savedResults(session);
    if (message.kind === 'assemble_recording' && !saved)
      throw new Error('the recording step came before the session’s insights were saved');
    const results = saved ?? (await makeResults(deps, session, utterances, receiveCount, log));
    if (records && message.kind === 'session_ended') {
      if (!saved) await saveResults(deps, session, message, results);
      // The recording in a step of its own; a redelivered hand-over (its first send lost, or the sweeper's resend
      // after the step died) queues it again, and the step is idempotent.
      await deps.outbox.send(assembleRecording(message));
      log.info('insights saved; the recording is assembled next');
      return;
    }
    const recordingFile = records ? await finishRecording(deps, session, log) : undefined;
    await completeSession(
      { ...deps.stores, config: deps.config },
      message.bot_id,
      {
        exitReason: message.exit_reason,
        ...results,
        // Minutes are charged up to when the bot left the room, not up to now (insights may have taken minutes,
        // or the message waited in the queue through throttling retries).
        endedAt: message.left_at,
        recordingFile,
      },
      deps.now(),
    );
    session = (await deps.stores.sessions.get(message.bot_id)) ?? session;
  }
  if (session.status !== 'completed') return;
  await scheduleResultsEmail(deps, session, transcriptText(utterances));
  await deps.outbox.send({ kind: 'session_completed', bot_id: session.botId });
  log.info('session completed', { exit_reason: session.exitReason });
}

/** A running session's saved results: only the results stage writes Q&A pairs, and always an array. */
function savedResults(session: BotSession): Results | undefined {
  if (session.qaPairs === undefined) return undefined;
  return {
    qaPairs: session.qaPairs,
    insights: session.insights ?? null,
    ...(session.insightsError !== undefined && { insightsError: session.insightsError }),
  };
}

/**
 * The results on the running session, before its recording is touched. A bot whose own leave write failed is
 * taken to have left as its hand-over says, as completeSession does. Conditional on the session still running.
 */
async function saveResults(
  deps: ResultsDeps,
  session: BotSession,
  handover: SessionEnded,
  results: Results,
): Promise<void> {
  const from = stateOf(session);
  const left =
    from === 'leaving'
      ? undefined
      : plan(from, 'leave', { exitReason: handover.exit_reason, leftAt: handover.left_at }, session.botId);
  const step = plan(left?.to ?? from, 'save_results', results, session.botId);
  const changes = { ...left?.changes, ...step.changes };
  if (!(await deps.stores.sessions.writeStep(session.botId, { leaves: (left ?? step).leaves, changes })))
    throw new Error('the session ended while its insights were being saved');
}

/** Q&A pairs and insights from the transcript; a failure is an insights_error (or the rules' Q&A), never lost. */
async function makeResults(
  deps: ResultsDeps,
  session: BotSession,
  utterances: Utterance[],
  receiveCount: number,
  log: Logger,
): Promise<Results> {
  const insightsStarted = Date.now();
  try {
    const result = await deps.insights.analyse({
      utterances,
      botName: session.botConfig.name,
      analysisPrompt: session.analysisPrompt,
      summaryFormatPrompt: session.summaryFormatPrompt,
      botGreeting: session.botConfig.bot_greeting,
      processInsights: session.processInsights,
    });
    metrics.insights(Date.now() - insightsStarted, true);
    return { qaPairs: result.qaPairs, insights: result.insights };
  } catch (err) {
    metrics.insights(Date.now() - insightsStarted, false);
    // Throttling is retried by the queue (ARCHITECTURE.md), not by waiting here; after that, and for any other
    // failure, the session completes without insights: the transcript is never lost.
    if (err instanceof InsightsError && err.retryable && receiveCount < insightsDeliveryAttempts) throw err;
    if (session.processInsights) {
      log.error('insights failed; completing without them', { err });
      return {
        qaPairs: [],
        insights: null,
        insightsError: err instanceof InsightsError ? err.message : 'Insights could not be generated.',
      };
    }
    // Insights were not asked for, so nothing failed that the client asked for: no insights_error (the interface
    // names it only for failed insight processing). The Q&A pairs come from the rule-based extraction instead.
    log.error('Q&A extraction failed; completing with rule-based Q&A pairs', { err });
    return { qaPairs: ruleBasedQaPairs(utterances, session.botConfig.name), insights: null };
  }
}

/**
 * The session's recording as one file, before the session completes (so the status view never shows a completed
 * session whose recording is still being made). A recording that cannot be made is a warning on the session, a metric
 * and an error log: the session completes without it. A storage failure throws, and the queue retries.
 */
async function finishRecording(
  deps: ResultsDeps,
  session: BotSession,
  log: Logger,
): Promise<RecordingFileInfo | undefined> {
  if (!deps.recordings) throw new Error('the results stage has no recording store, and this session records');
  const outcome = await finaliseRecording(deps.recordings, session.botId, log);
  if ('file' in outcome) {
    log.info('recording assembled', fileFields(outcome.file));
    return outcome.file;
  }
  await recordingFailed(deps, session.botId, outcome.error, log);
  return undefined;
}

const fileFields = (file: RecordingFileInfo) => ({
  duration_seconds: file.durationSeconds,
  size_bytes: file.sizeBytes,
  gaps: file.gaps.length,
});

/** Loud: a warning on the session (status view, session_complete), the metric, and an error line. */
async function recordingFailed(deps: ResultsDeps, botId: string, error: string, log: Logger): Promise<void> {
  log.error('recording failed; the session has none', { detail: error });
  if (await deps.stores.sessions.addWarning(botId, { code: 'recording_failed', message: error }))
    metrics.sessionWarning('recording_failed');
}

/**
 * A recorded session that failed after its bot was in the room (transcription unavailable, replacements used up):
 * the pieces its bots uploaded become one file, as for a completed session, announced by `recording.ready`. A session
 * whose content was deleted meanwhile keeps no file: one assembled during the deletion is removed again.
 */
async function assembleFailedRecording(deps: ResultsDeps, botId: string): Promise<void> {
  const log = deps.log.child({ bot_id: botId });
  const session = await deps.stores.sessions.get(botId);
  if (session?.status !== 'failed' || !recordsAudio(session)) {
    log.warn('a failed session to assemble the recording of is not one', { status: session?.status });
    return;
  }
  // Its data was deleted first: the pieces are gone, and nothing is to be made of them.
  if (session.dataDeletedAt) return;
  if (!deps.recordings) throw new Error('the results stage has no recording store, and this session records');
  if (!session.recordingFile) {
    const recordings = deps.recordings;
    // Deleted while it was being assembled: the pieces went mid-way, or the deletion may have missed the new file.
    const deletedMeanwhile = async () => {
      if (!(await deps.stores.sessions.get(botId))?.dataDeletedAt) return false;
      await recordings.deleteFile(botId);
      log.info('recording of a failed session not kept: its data was deleted meanwhile');
      return true;
    };
    let outcome: Awaited<ReturnType<typeof finaliseRecording>>;
    try {
      outcome = await finaliseRecording(recordings, botId, log);
    } catch (err) {
      if (await deletedMeanwhile()) return;
      throw err;
    }
    if ('error' in outcome) return recordingFailed(deps, botId, outcome.error, log);
    if (!(await deps.stores.sessions.setFailedRecordingFile(botId, outcome.file))) {
      if (await deletedMeanwhile()) return;
      if (!(await deps.stores.sessions.get(botId))?.recordingFile)
        throw new Error('the failed session could not take its recording');
    }
    log.info('recording of a failed session assembled', fileFields(outcome.file));
  }
  // A redelivered message sends it again: the control function sends recording.ready once.
  await deps.outbox.send({ kind: 'recording_ready', bot_id: botId });
}

/** The embedded, model-free Q&A extraction: the fallback when a model engine's Q&A step fails. */
function ruleBasedQaPairs(utterances: Utterance[], botName: string | undefined): Results['qaPairs'] {
  try {
    return analyseLocally({ utterances, botName, processInsights: false }).qaPairs;
  } catch {
    return [];
  }
}

async function scheduleResultsEmail(
  deps: ResultsDeps,
  session: BotSession,
  transcript: string,
): Promise<void> {
  if (!session.email) return;
  const payload = sessionCompletePayload(session, transcript);
  const mail = renderResultsEmail({
    roomName: session.roomName,
    startedAt: payload.started_at,
    completedAt: payload.completed_at,
    exitReason: payload.exit_reason,
    durationSeconds: payload.duration_seconds,
    transcript: payload.transcript_text,
    qaPairs: payload.qa_pairs,
    insights: session.insights ?? null,
    insightsError: session.insightsError,
    warnings: payload.warnings,
  });
  await scheduleDelivery(
    deps.stores,
    deps.deliveryQueue,
    {
      botId: session.botId,
      accountId: session.accountId,
      channel: 'email',
      event: 'session_complete',
      target: session.email,
      payload: JSON.stringify(mail),
    },
    deps.now(),
  );
}
