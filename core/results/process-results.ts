// The results stage: a bot's hand-over becomes a completed session (Q&A pairs, insights, credits settled), its
// e-mail, and a session_completed message to the bot-events queue, which sends bot.done and session_complete after
// the bot's earlier events (core/control/); a recorded session that failed gets its recording assembled all the same.
// Every step is idempotent, so a duplicate or redelivered message completes nothing twice and sends nothing twice.

import { completeSession } from '../bots/finish-session';
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
import type { ResultsMessage } from './messages';

type SessionEnded = Extract<ResultsMessage, { kind: 'session_ended' }>;

export interface ResultsDeps {
  stores: Pick<Stores, 'sessions' | 'ledger' | 'transcripts' | 'deliveries' | 'accounts' | 'retention'>;
  config: Pick<Config, 'CREDITS_PER_MINUTE' | 'RETENTION_DAYS'>;
  /** Where session_completed goes (the bot-events queue: bot.done and session_complete in the bot's order). */
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

export async function processResults(
  deps: ResultsDeps,
  message: ResultsMessage,
  receiveCount = 1,
): Promise<void> {
  await handle(deps, message, receiveCount);
  deps.onProcessed?.(message);
}

async function handle(deps: ResultsDeps, message: ResultsMessage, receiveCount: number): Promise<void> {
  if (message.kind === 'session_failed') return assembleFailedRecording(deps, message.bot_id);
  return complete(deps, message, receiveCount);
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
    let qaPairs: BotSession['qaPairs'] = [];
    let insights: BotSession['insights'] = null;
    let insightsError: string | undefined;
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
      qaPairs = result.qaPairs;
      insights = result.insights;
      metrics.insights(Date.now() - insightsStarted, true);
    } catch (err) {
      metrics.insights(Date.now() - insightsStarted, false);
      // Throttling is retried by the queue (ARCHITECTURE.md), not by waiting here; after that, and for any other
      // failure, the session completes without insights: the transcript is never lost.
      if (err instanceof InsightsError && err.retryable && receiveCount < insightsDeliveryAttempts) throw err;
      if (session.processInsights) {
        insightsError = err instanceof InsightsError ? err.message : 'Insights could not be generated.';
        log.error('insights failed; completing without them', { err });
      } else {
        // Insights were not asked for, so nothing failed that the client asked for: no insights_error (the
        // interface names it only for failed insight processing). The Q&A pairs come from the rule-based extraction
        // instead.
        qaPairs = ruleBasedQaPairs(utterances, session.botConfig.name);
        log.error('Q&A extraction failed; completing with rule-based Q&A pairs', { err });
      }
    }
    const recordingFile = recordsAudio(session) ? await finishRecording(deps, session, log) : undefined;
    await completeSession(
      { ...deps.stores, config: deps.config },
      message.bot_id,
      {
        exitReason: message.exit_reason,
        qaPairs,
        insights,
        insightsError,
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
    log.info('recording assembled', {
      duration_seconds: outcome.file.durationSeconds,
      size_bytes: outcome.file.sizeBytes,
      gaps: outcome.file.gaps.length,
    });
    return outcome.file;
  }
  await recordingFailed(deps, session.botId, outcome.error, log);
  return undefined;
}

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
    const outcome = await finaliseRecording(deps.recordings, botId, log);
    if ('error' in outcome) return recordingFailed(deps, botId, outcome.error, log);
    if (!(await deps.stores.sessions.setFailedRecordingFile(botId, outcome.file))) {
      const now = await deps.stores.sessions.get(botId);
      if (now?.dataDeletedAt) {
        // Deleted while it was being assembled: the deletion may have missed this file.
        await deps.recordings.deleteFile(botId);
        log.info('recording of a failed session not kept: its data was deleted meanwhile');
        return;
      }
      if (!now?.recordingFile) throw new Error('the failed session could not take its recording');
    }
    log.info('recording of a failed session assembled', {
      duration_seconds: outcome.file.durationSeconds,
      size_bytes: outcome.file.sizeBytes,
      gaps: outcome.file.gaps.length,
    });
  }
  // A redelivered message sends it again: the control function sends recording.ready once.
  await deps.outbox.send({ kind: 'recording_ready', bot_id: botId });
}

/** The embedded, model-free Q&A extraction: the fallback when a model engine's Q&A step fails. */
function ruleBasedQaPairs(utterances: Utterance[], botName: string | undefined): BotSession['qaPairs'] {
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
