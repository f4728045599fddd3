// The results stage: a bot's hand-over becomes a completed session (Q&A pairs, insights, credits settled) and one
// delivery job per channel; failure events become webhook deliveries. Every step is idempotent, so a duplicate or
// redelivered message completes nothing twice and sends nothing twice.

import { completeSession } from '../bots/finish-session';
import { startColdIfUnclaimed } from '../bots/pool-fallback';
import { replaceBot } from '../bots/replace-bot';
import type { BotSession } from '../bots/session';
import { transcriptText, type Utterance } from '../bots/transcript';
import type { Config } from '../config';
import { scheduleDelivery } from '../delivery/deliver';
import { sessionCompletePayload } from '../delivery/payloads';
import type { Stores } from '../deps';
import { analyseLocally } from '../engines/rules/insights/local-engine';
import { emitEvent, sendSpecEvent } from '../events/emit';
import type { Logger } from '../log';
import { renderResultsEmail } from '../mail/results-email';
import { metrics } from '../metrics';
import { type InsightsEngine, InsightsError } from '../ports/insights-engine';
import type { MessageQueue } from '../ports/queue';
import type { TaskRunner } from '../ports/task-runner';
import type { ResultsMessage } from './messages';

export interface ResultsDeps {
  stores: Pick<Stores, 'sessions' | 'ledger' | 'transcripts' | 'deliveries'>;
  config: Pick<Config, 'CREDITS_PER_MINUTE' | 'MAX_REPLACEMENTS'>;
  /** Starts the replacement of a lost bot (replace_bot messages) and the warm pool's cold fallback (start_cold). */
  runner: TaskRunner;
  /** The results queue itself: a replacement that cannot start fails the session with a bot_failed message. */
  results: MessageQueue;
  insights: InsightsEngine;
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
  const log = deps.log.child({ bot_id: message.bot_id });
  if (message.kind === 'bot_event') {
    const session = await deps.stores.sessions.get(message.bot_id);
    if (!session) return log.warn('an event of an unknown session', { event: message.event });
    await emitEvent(
      deps,
      session,
      { name: message.event, at: message.at, data: message.data, key: message.key, detail: message.detail },
      deps.now(),
    );
    return;
  }
  if (message.kind === 'replace_bot') {
    const outcome = await replaceBot(deps, message, deps.now());
    log.info('replacement request processed', { outcome, attempt: message.attempt, alive: message.alive });
    if (outcome === 'replaced') {
      const session = await deps.stores.sessions.get(message.bot_id);
      const attempt = message.attempt + 1;
      if (session) {
        await emitEvent(
          deps,
          session,
          {
            name: 'bot.replaced',
            at: deps.now().toISOString(),
            key: String(attempt),
            detail: message.reason,
            data: { reason: message.reason, lost_at: message.lost_at, attempt },
          },
          deps.now(),
        );
      }
    }
    return;
  }
  if (message.kind === 'start_cold') {
    const outcome = await startColdIfUnclaimed(deps, message, deps.now());
    log.info('pool fallback processed', { outcome, reason: message.reason });
    return;
  }
  if (message.kind !== 'session_ended') {
    const session = await deps.stores.sessions.get(message.bot_id);
    // bot_failed travels without its partial transcript (queue message size); the failed session holds it.
    const event =
      message.kind === 'bot_failed'
        ? { ...message.event, transcript_text: session?.transcript ?? '' }
        : message.event;
    if (session) {
      await emitEvent(
        deps,
        session,
        {
          name: 'bot.failed',
          at: event.timestamp,
          detail: event.error_message,
          data: { error: event.error_message },
        },
        deps.now(),
      );
    }
    if (session) await sendSpecEvent(deps, session, message.kind, event, deps.now());
    log.info('failure event processed', {
      event_type: message.event.event_type,
      webhook: Boolean(session?.webhookUrl),
    });
    return;
  }

  let session = await deps.stores.sessions.get(message.bot_id);
  if (!session) {
    log.warn('results for an unknown session');
    return;
  }
  if (session.status === 'running') {
    const utterances = await deps.stores.transcripts.load(message.bot_id);
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
      // Throttling is retried by the queue (ARCHITECTURE.md §2), not by waiting here; after that, and for any other
      // failure, the session completes without insights: the transcript is never lost (spec §6.1).
      if (err instanceof InsightsError && err.retryable && receiveCount < insightsDeliveryAttempts) throw err;
      if (session.processInsights) {
        insightsError = err instanceof InsightsError ? err.message : 'Insights could not be generated.';
        log.error('insights failed; completing without them', { err });
      } else {
        // Insights were not asked for, so nothing failed that the client asked for: no insights_error (spec §6.1
        // names it only for failed insight processing). The Q&A pairs come from the rule-based extraction instead.
        qaPairs = ruleBasedQaPairs(utterances, session.botConfig.name);
        log.error('Q&A extraction failed; completing with rule-based Q&A pairs', { err });
      }
    }
    await completeSession(
      { ...deps.stores, config: deps.config },
      message.bot_id,
      {
        exitReason: message.exit_reason,
        transcript: transcriptText(utterances),
        qaPairs,
        insights,
        insightsError,
        // Minutes are charged up to when the bot left the room, not up to now (insights may have taken minutes,
        // or the message waited in the queue through throttling retries).
        endedAt: message.left_at,
      },
      deps.now(),
    );
    session = (await deps.stores.sessions.get(message.bot_id)) ?? session;
  }
  if (session.status !== 'completed') return;
  await emitEvent(
    deps,
    session,
    { name: 'bot.done', at: session.completedAt ?? deps.now().toISOString(), data: { status: 'completed' } },
    deps.now(),
  );
  await scheduleResultDeliveries(deps, session);
  log.info('session completed', { exit_reason: session.exitReason });
}

/** The embedded, model-free Q&A extraction: the fallback when a model engine's Q&A step fails. */
function ruleBasedQaPairs(utterances: Utterance[], botName: string | undefined): BotSession['qaPairs'] {
  try {
    return analyseLocally({ utterances, botName, processInsights: false }).qaPairs;
  } catch {
    return [];
  }
}

async function scheduleResultDeliveries(deps: ResultsDeps, session: BotSession): Promise<void> {
  const payload = sessionCompletePayload(session);
  const base = { botId: session.botId, accountId: session.accountId, event: 'session_complete' };
  await sendSpecEvent(deps, session, 'session_complete', payload, deps.now());
  if (session.email) {
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
      { ...base, channel: 'email', target: session.email, payload: JSON.stringify(mail) },
      deps.now(),
    );
  }
}
