// Port: delivery records, one per bot, channel and event, with every attempt (time, status, latency, error).
import type { PurgeCursor } from './data-deletions';

export type Channel = 'webhook' | 'email';
export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface Attempt {
  at: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
}

export interface Delivery {
  botId: string;
  accountId: string;
  channel: Channel;
  event: string;
  /** Webhook URL or e-mail address. */
  target: string;
  /** The webhook body, or the e-mail as JSON ({subject, html, text}). */
  payload: string;
  /** Standard Webhooks `webhook-id`: the same for every attempt, so receivers can deduplicate. */
  messageId: string;
  status: DeliveryStatus;
  attempts: Attempt[];
  createdAt: string;
  deliveredAt?: string;
  nextAttemptAt?: string;
  /** Epoch ms until which a worker holds the send (0 or absent: nobody). */
  claimUntil?: number;
  /** The bot's event number of an event of ours: its webhook deliveries go out in this order. */
  seq?: number;
  /** When its payload was deleted with the meeting's data: it is never sent again, whatever asks for it. */
  contentDeletedAt?: string;
}

/** A delivery record a job carries for the claim to create (the hot path's inline job). */
export type NewDeliveryRecord = Omit<Delivery, 'status' | 'attempts'> & {
  /**
   * Its payload is the meeting's content: the claim creates it only while the session's data is not deleted, in the
   * same atomic write, so a job still queued when the data is deleted never stores or sends it.
   */
  meetingContent?: boolean;
};

/** What a claim got: the delivery to send, nothing to send (null), or a content job whose meeting data is deleted. */
export type ClaimResult = Delivery | 'data_deleted' | null;

export interface DeliveriesStore {
  /** Creates the record once; a duplicate results message finds it and changes nothing. Returns false then. */
  create(d: Omit<Delivery, 'status' | 'attempts'>): Promise<boolean>;
  get(botId: string, channel: Channel, event: string): Promise<Delivery | null>;
  list(botId: string): Promise<Delivery[]>;
  /**
   * Takes the right to send a pending delivery now and returns it; null when it is delivered, failed, missing, or
   * another worker holds an unexpired claim (at most one send in flight), or its next attempt is not due yet. With
   * `create`, a missing record is created in the same call; an existing one keeps its webhook-id, seq and payload.
   * `data_deleted`: `create` is meeting content, no record exists, and the session's data is deleted; nothing stored.
   */
  claim(
    botId: string,
    channel: Channel,
    event: string,
    untilMs: number,
    nowMs: number,
    create?: NewDeliveryRecord,
  ): Promise<ClaimResult>;
  /** Appends an attempt and sets the resulting state; only a pending delivery changes. */
  recordAttempt(
    d: Delivery,
    attempt: Attempt,
    outcome: { status: DeliveryStatus; nextAttemptAt?: string },
  ): Promise<boolean>;
  /** A failed (dead-lettered) delivery goes back to pending for a redrive; its attempts are kept. */
  reopen(botId: string, channel: Channel, event: string): Promise<boolean>;
  /**
   * Deletes the payloads of one page of the bot's deliveries (the meeting's data deletion), from `from`, keeping
   * channel, event, target, status, attempts and ids so the delivery log still reads; marks each `contentDeletedAt`.
   * Returns where the next page starts, or undefined when none is left; each call is bounded (a page).
   */
  purgeContent(botId: string, at: Date, from?: PurgeCursor): Promise<PurgeCursor | undefined>;
}
