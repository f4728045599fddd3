// Delivering one job: a signed webhook POST or one e-mail, recorded attempt by attempt, retried on schedule.
import { BoundedMap } from '../bots/bounded-map';
import type { Config } from '../config';
import type { Logger } from '../log';
import { metrics } from '../metrics';
import { type PostResult, safePost } from '../net/safe-post';
import type { Account, AccountsStore } from '../ports/accounts-store';
import type { Attempt, Channel, DeliveriesStore, Delivery } from '../ports/deliveries-store';
import { type Mail, type Mailer, MailRefusedError } from '../ports/mailer';
import type { MessageQueue } from '../ports/queue';
import { nextRetry, parseRetryAfter } from './retry-schedule';
import { newWebhookMessageId, signingSecrets, webhookHeaders } from './webhook-signer';

export interface DeliveryJob {
  bot_id: string;
  channel: Channel;
  event: string;
  /**
   * The delivery itself, when the sender did not store it (a small webhook event): the delivery stage's claim creates
   * the record in the same call. Absent: the record was stored before the job was sent (e-mails, large bodies).
   */
  record?: DeliveryRecordJob;
}

/** A delivery record as a job carries it (snake_case, as on the queue). */
export interface DeliveryRecordJob {
  account_id: string;
  target: string;
  payload: string;
  message_id: string;
  created_at: string;
  seq?: number;
  /** Its payload is the meeting's content: the claim stores it only while the meeting's data is not deleted. */
  meeting_content?: boolean;
}

/**
 * The largest body a job carries itself (SQS takes 256 KiB a message): a larger one (a long meeting's
 * session_complete) is stored first and its job carries only its key.
 */
export const maxInlinePayloadChars = 64 * 1024;

/** The attempt error of a delivery whose payload went with the meeting's data. */
export const contentDeletedError =
  'content_deleted: the meeting data was deleted before this delivery was sent';

export type DeliveryOutcome =
  | { kind: 'done' }
  | { kind: 'retry'; delaySeconds: number }
  | { kind: 'failed'; reason: string };

export interface DeliveryDeps {
  stores: { deliveries: DeliveriesStore; accounts: AccountsStore };
  mailer: Mailer;
  config: Pick<
    Config,
    | 'WEBHOOK_TIMEOUT_MS'
    | 'ALLOW_INSECURE_WEBHOOKS'
    | 'DELIVERY_BACKOFF_SCALE'
    | 'WEBHOOK_SECRET_OVERLAP_SECONDS'
    | 'WEBHOOK_SECRET_CACHE_MS'
  >;
  log: Logger;
  now: () => Date;
  /** Tests: DNS stand-in for the SSRF guard. */
  resolve?: (host: string) => Promise<string[]>;
}

type NewDelivery = Omit<Delivery, 'status' | 'attempts' | 'messageId' | 'createdAt'> & {
  /** The payload is the meeting's content (the event registry says which events carry it). */
  meetingContent?: boolean;
};

/**
 * Queues a delivery to make. `inline` (a live event received for the first time, the hot path): a small body travels
 * in the job and the delivery stage's claim stores it, one write for both. Otherwise it is stored here first, once, so
 * a repeat (a redelivered message, a hand-over seen twice) finds it, keeps its webhook-id and seq, and only re-queues
 * a pending one.
 */
export async function scheduleDelivery(
  stores: { deliveries: DeliveriesStore },
  queue: MessageQueue,
  d: NewDelivery,
  now: Date,
  options: { inline?: boolean } = {},
): Promise<void> {
  const messageId = newWebhookMessageId();
  if (options.inline && d.payload.length <= maxInlinePayloadChars) {
    await queue.send({
      bot_id: d.botId,
      channel: d.channel,
      event: d.event,
      record: {
        account_id: d.accountId,
        target: d.target,
        payload: d.payload,
        message_id: messageId,
        created_at: now.toISOString(),
        ...(d.seq !== undefined && { seq: d.seq }),
        ...(d.meetingContent && { meeting_content: true }),
      },
    } satisfies DeliveryJob);
    return;
  }
  const { meetingContent: _, ...record } = d;
  const created = await stores.deliveries.create({ ...record, messageId, createdAt: now.toISOString() });
  // Created now: it is what we wrote. Otherwise an earlier try made it (and keeps its webhook-id and seq).
  const current = created ? { status: 'pending' } : await stores.deliveries.get(d.botId, d.channel, d.event);
  if (current?.status === 'pending') await requeueDelivery(queue, d);
}

/** Queues the job of a stored delivery (a repeat that finds it still pending). */
export async function requeueDelivery(
  queue: MessageQueue,
  d: Pick<Delivery, 'botId' | 'channel' | 'event'>,
): Promise<void> {
  await queue.send({ bot_id: d.botId, channel: d.channel, event: d.event } satisfies DeliveryJob);
}

export async function deliver(deps: DeliveryDeps, job: DeliveryJob): Promise<DeliveryOutcome> {
  const { deliveries } = deps.stores;
  const now = deps.now();
  // One sender at a time: a duplicate message finds the claim (or a finished delivery) and leaves; the claim
  // holder's own message is still queued if it crashes.
  const claimMs = deps.config.WEBHOOK_TIMEOUT_MS + 30_000;
  const d = await deliveries.claim(
    job.bot_id,
    job.channel,
    job.event,
    now.getTime() + claimMs,
    now.getTime(),
    job.record && {
      botId: job.bot_id,
      accountId: job.record.account_id,
      channel: job.channel,
      event: job.event,
      target: job.record.target,
      payload: job.record.payload,
      messageId: job.record.message_id,
      createdAt: job.record.created_at,
      ...(job.record.seq !== undefined && { seq: job.record.seq }),
      ...(job.record.meeting_content && { meetingContent: true }),
    },
  );
  if (d === 'data_deleted') {
    // Queued before the meeting's data was deleted: its content is never stored or sent (no record, no attempt).
    deps.log.info('delivery dropped: the meeting data was deleted before it was stored', {
      bot_id: job.bot_id,
      account_id: job.record?.account_id,
      channel: job.channel,
      event: job.event,
    });
    return { kind: 'done' };
  }
  if (!d) {
    // Not claimable: finished, claimed by another worker (a duplicate), or its next attempt is not due yet.
    const current = await deliveries.get(job.bot_id, job.channel, job.event);
    const due =
      current?.status === 'pending' && current.nextAttemptAt ? Date.parse(current.nextAttemptAt) : 0;
    if (due > now.getTime()) return { kind: 'retry', delaySeconds: Math.ceil((due - now.getTime()) / 1000) };
    // Another worker holds the send (or held it and died): come back when its claim ends, never drop the job,
    // or a claim left by a crash would leave the delivery pending with no message to finish it.
    const claimed = current?.status === 'pending' ? (current.claimUntil ?? 0) : 0;
    if (claimed > now.getTime()) {
      return { kind: 'retry', delaySeconds: Math.ceil((claimed - now.getTime()) / 1000) };
    }
    // Gave up earlier: its message comes back only if parking it in the DLQ failed, so park it (again).
    if (current?.status === 'failed')
      return { kind: 'failed', reason: current.attempts.at(-1)?.error ?? 'failed' };
    return { kind: 'done' };
  }

  const log = deps.log.child({
    bot_id: d.botId,
    account_id: d.accountId,
    channel: d.channel,
    event: d.event,
  });
  if (d.contentDeletedAt !== undefined) {
    // The meeting's data was deleted: a replay, a redrive or a late retry never sends its content again. The record
    // ends failed with the reason, and the job is done (nothing to park in the DLQ and redrive later).
    await deliveries.recordAttempt(
      d,
      { at: now.toISOString(), status_code: null, latency_ms: 0, error: contentDeletedError },
      { status: 'failed' },
    );
    log.info('delivery dropped: the meeting data was deleted');
    return { kind: 'done' };
  }
  const result: SendResult = d.channel === 'webhook' ? await postWebhook(deps, d) : await sendMail(deps, d);
  const ok = result.status !== undefined && result.status >= 200 && result.status < 300;
  const attempt: Attempt = {
    at: now.toISOString(),
    status_code: d.channel === 'webhook' ? (result.status ?? null) : null,
    latency_ms: result.latencyMs,
    error: ok ? null : (result.error ?? `HTTP ${result.status}`),
  };
  if (ok) {
    await deliveries.recordAttempt(d, attempt, { status: 'delivered' });
    metrics.deliveryAttempt(d.channel, 'delivered', d.createdAt, now);
    log.info('delivered', { attempt: d.attempts.length + 1, latency_ms: result.latencyMs });
    return { kind: 'done' };
  }
  const blocked = attempt.error?.startsWith('blocked:') ?? false;
  if (result.refusal) {
    metrics.emailRefused(result.refusal);
    if (result.refusal === 'permanent')
      log.error('e-mail refused by SES for good; recorded failed, not retried', { error: attempt.error });
  }
  const decision =
    blocked || result.refusal === 'permanent'
      ? { retry: false, delaySeconds: 0 }
      : nextRetry(d.attempts.length + 1, {
          retryAfterSeconds: parseRetryAfter(result.retryAfter, now.getTime()),
          scale: deps.config.DELIVERY_BACKOFF_SCALE,
        });
  if (decision.retry) {
    const nextAttemptAt = new Date(now.getTime() + decision.delaySeconds * 1000).toISOString();
    await deliveries.recordAttempt(d, attempt, { status: 'pending', nextAttemptAt });
    metrics.deliveryAttempt(d.channel, 'retry', d.createdAt, now);
    log.warn('delivery attempt failed; will retry', {
      attempt: d.attempts.length + 1,
      error: attempt.error,
      retry_in_s: decision.delaySeconds,
    });
    return { kind: 'retry', delaySeconds: decision.delaySeconds };
  }
  await deliveries.recordAttempt(d, attempt, { status: 'failed' });
  metrics.deliveryAttempt(d.channel, 'failed', d.createdAt, now);
  log.error('delivery failed for good', { attempts: d.attempts.length + 1, error: attempt.error });
  return { kind: 'failed', reason: attempt.error ?? 'failed' };
}

/** Accounts read for their signing secrets, per store (so per process), each until its entry's `until`. */
const signingAccounts = new WeakMap<AccountsStore, BoundedMap<SigningAccount>>();
type SigningAccount = { account: Account; until: number };

/**
 * The account whose secrets sign a webhook: reused for WEBHOOK_SECRET_CACHE_MS (which of them sign is still decided
 * at `now`: a rotation's overlap ends on time). A missing account is never cached.
 */
async function signingAccount(deps: DeliveryDeps, accountId: string, nowMs: number): Promise<Account | null> {
  const cache = signingAccounts.get(deps.stores.accounts) ?? new BoundedMap<SigningAccount>(10_000, Infinity);
  signingAccounts.set(deps.stores.accounts, cache);
  const hit = cache.get(accountId);
  if (hit && nowMs < hit.until) return hit.account;
  const account = await deps.stores.accounts.get(accountId);
  if (account && deps.config.WEBHOOK_SECRET_CACHE_MS > 0)
    cache.set(accountId, { account, until: nowMs + deps.config.WEBHOOK_SECRET_CACHE_MS }, 0);
  return account;
}

async function postWebhook(deps: DeliveryDeps, d: Delivery): Promise<PostResult> {
  const now = deps.now();
  const account = await signingAccount(deps, d.accountId, now.getTime());
  if (!account) return { latencyMs: 0, error: 'blocked: the account no longer exists' };
  const secrets = signingSecrets(account, now, deps.config.WEBHOOK_SECRET_OVERLAP_SECONDS);
  const headers = webhookHeaders(secrets, d.messageId, Math.floor(now.getTime() / 1000), d.payload);
  return safePost(d.target, d.payload, headers, {
    timeoutMs: deps.config.WEBHOOK_TIMEOUT_MS,
    allowInsecure: deps.config.ALLOW_INSECURE_WEBHOOKS,
    resolve: deps.resolve,
  });
}

/** A send's result; `refusal` when the mail service answered no (permanent: never retried). */
type SendResult = PostResult & { refusal?: 'permanent' | 'transient' };

async function sendMail(deps: DeliveryDeps, d: Delivery): Promise<SendResult> {
  const started = performance.now();
  try {
    const mail = JSON.parse(d.payload) as Omit<Mail, 'to'>;
    await deps.mailer.send({ ...mail, to: d.target });
    return { status: 200, latencyMs: Math.round(performance.now() - started) };
  } catch (err) {
    return {
      latencyMs: Math.round(performance.now() - started),
      error: err instanceof Error ? err.message : String(err),
      ...(err instanceof MailRefusedError && { refusal: err.permanent ? 'permanent' : 'transient' }),
    };
  }
}
