// The bot session as the domain sees it, and its public status view.

import type { BotStatus, ExitReason, Provider, SessionErrorCode } from '../schemas/api';
import type { BotConfig } from '../schemas/bot-config';
import type { RecordingSummary, ReplacementView, SessionWarningView, StatusView } from '../schemas/bot-views';
import type { BotSummary } from '../schemas/list-views';
import type { Insights, QaPair } from '../schemas/results';
import type { RecordingRequest } from '../schemas/start-request';

export interface BotSession {
  botId: string;
  accountId: string;
  status: BotStatus;
  provider: Provider;
  roomUrl: string;
  roomName: string;
  botConfig: BotConfig;
  processInsights: boolean;
  email?: string;
  webhookUrl?: string;
  /** Secret: read by the bot-task only, never returned or logged. */
  meetingToken?: string;
  analysisPrompt?: string;
  summaryFormatPrompt?: string;
  holdCredits: number;
  createdAt: string;
  startedAt: string | null;
  completedAt: string | null;
  stopRequestedAt?: string;
  /** When the bot got into the room; a bot that never did is not charged. */
  joinedAt?: string;
  /**
   * From when the session may have transcript segments: written with `joinedAt` as the first bot gets into the room
   * (its recorder's first save waits for that write), or by the transcript store before a task's first segment when
   * that write did not land. `null` on a session created without segments yet: readers then know there is nothing to
   * read. Absent on sessions written before the mark existed: readers read their segments as always.
   */
  transcriptAt?: string | null;
  /** When the bot left the room (before results are processed). */
  leftAt?: string;
  exitReason?: ExitReason;
  error?: string;
  /** What failed, when we know more than `error` says (status view `error_code`). */
  errorCode?: SessionErrorCode;
  qaPairs?: QaPair[];
  insights?: Insights | null;
  /** Why insights are missing when processing failed (webhook `insights_error`). */
  insightsError?: string;
  /** Runner's handle of the task (child pid locally, task ARN in ECS). */
  taskRef?: string;
  heartbeatAt?: string;
  /** When the heartbeat sweeper last handed a stuck session's results over again, and how often it has. */
  handoverResentAt?: string;
  handoverResends?: number;
  /** The events the webhook receives (start request `webhook_events`); unset: the defaults (events/registry.ts). */
  webhookEvents?: string[];
  /** The steps of the bot's life, in order (status view `status_changes`). */
  statusChanges?: StatusChange[];
  /** The last `seq` given to an event of ours for this bot's webhook. */
  webhookSeq?: number;
  /** The join's request id: every stage of the bot's life logs it as correlation_id (core/correlation.ts). */
  correlationId?: string;
  /** Each time the bot was lost and a new task took over: the current task is attempt `length`. */
  replacements?: Replacement[];
  /** The join offered the session to the warm pool: a pooled bot may claim it until someone has. */
  poolOfferedAt?: string;
  /** Who took the session: a pooled bot's id, or `cold` (a task started for it). Set once, conditionally. */
  claimedBy?: string;
  /** When it was taken: `claimedAt - createdAt` is the time to claim. */
  claimedAt?: string;
  /** How the bot that serves the session started: an idle pooled bot, or a fresh (cold) task. */
  startPath?: StartPath;
  /** A scheduled session: when the bot joins the room (start request `join_at`, UTC). */
  joinAt?: string;
  /** When the scheduler handed a scheduled session to a bot (offered it to the pool, or started its task). */
  dispatchedAt?: string;
  /** What the bot had to do without (a failed model or voice), once per code, in order (status view `warnings`). */
  warnings?: SessionWarning[];
  /**
   * When the meeting's content (transcript, Q&A pairs, insights, delivered payloads) was deleted, by the customer or
   * by the account's retention: the session is a tombstone from then on (core/data/delete-meeting-data.ts).
   */
  dataDeletedAt?: string;
  /** What the start request asked to record (start request `recording`); unset: nothing. */
  recording?: RecordingRequest;
  /** The assembled recording, set by the results stage when the session completes with one. */
  recordingFile?: RecordingFileInfo;
}

/** The assembled recording of a session: what the status view, the webhook and the recording endpoint tell. */
export interface RecordingFileInfo {
  durationSeconds: number;
  sizeBytes: number;
  /** Stretches without audio (a lost bot until its replacement joined), in seconds. */
  gaps: { atSeconds: number; seconds: number }[];
}

/** Whether the session records audio. */
export function recordsAudio(s: Pick<BotSession, 'recording'>): boolean {
  return s.recording?.audio === true;
}

export function recordingSummary(s: Pick<BotSession, 'recordingFile'>): RecordingSummary | null {
  const f = s.recordingFile;
  return f ? { duration_seconds: f.durationSeconds, size_bytes: f.sizeBytes } : null;
}

/** A degradation the customer is told about; the codes are the schema's (core/schemas/bot-views.ts `warningCodes`). */
export type SessionWarning = SessionWarningView;

export type StartPath = 'pool' | 'cold';

/** The `claimedBy` of a session a fresh task serves (the join's fallback, or no pool). */
export const coldClaimant = 'cold';

/** How a session is taken: by a pooled bot (only while offered and not asked to stop), or for a cold start. */
export interface SessionClaim {
  by: string;
  path: StartPath;
  at: string;
  /**
   * Takes the session over from this claimant (a pooled bot lost before it got into the room); without it, only a
   * session nobody has taken yet.
   */
  from?: string;
  /**
   * The claimant's task, when the platform has one to stop (an ECS pooled bot's task ARN): the leave's StopTask
   * backstop and the sweeper find it as they find a cold task's.
   */
  taskRef?: string;
}

/** One step of the bot's life: scheduled, joining, in_waiting_room, in_call, left, done, failed, replaced. */
export interface StatusChange {
  code: string;
  at: string;
  detail?: string;
}

/** A lost bot's replacement: when and why the bot was lost, the task that replaced it and when that one got in. */
export interface Replacement {
  at: string;
  reason: string;
  taskRef?: string;
  joinedAt?: string;
}

/** Which task serves the session now: 0 the first, n after n replacements (the bot-task's BOT_ATTEMPT). */
export function currentAttempt(s: Pick<BotSession, 'replacements'>): number {
  return s.replacements?.length ?? 0;
}

/** Seconds from the session's start until `now`: a failure event's duration_seconds. */
export function secondsSinceStart(s: Pick<BotSession, 'startedAt' | 'createdAt'>, now: Date): number {
  return Math.max(0, (now.getTime() - Date.parse(s.startedAt ?? s.createdAt)) / 1000);
}

export function warningViews(s: Pick<BotSession, 'warnings'>): SessionWarningView[] {
  return (s.warnings ?? []).map((w) => ({ code: w.code, message: w.message }));
}

export function replacementViews(s: Pick<BotSession, 'replacements'>): ReplacementView[] {
  return (s.replacements ?? []).map((r) => ({ at: r.at, reason: r.reason }));
}

/** What a list of bots shows of one (GET /api/bots). */
export function toBotSummary(s: BotSession): BotSummary {
  return {
    bot_id: s.botId,
    status: s.status,
    provider: s.provider,
    room_url: s.roomUrl,
    created_at: s.createdAt,
    started_at: s.startedAt,
    completed_at: s.completedAt,
    exit_reason: s.exitReason ?? null,
    error: s.error ?? null,
  };
}

/** The status view of a session with its transcript text (null while nothing was said in a running session). */
export function toStatusView(s: BotSession, transcript: string | null): StatusView {
  const { provider: _, created_at: __, ...common } = toBotSummary(s);
  // A tombstone shows no content, whatever a reader may still hold of it.
  const deleted = s.dataDeletedAt !== undefined;
  // Results are shown once the session completed: a recorded session's are saved before its recording is assembled
  // (docs/recording.md#how-the-results-stage-assembles-it), and the interface has them "available when completed".
  const results = !deleted && s.status !== 'running';
  return {
    ...common,
    join_at: s.joinAt ?? null,
    error_code: s.errorCode ?? null,
    transcript: deleted ? null : transcript,
    qa_pairs: results ? (s.qaPairs ?? null) : null,
    insights: results ? (s.insights ?? null) : null,
    replacements: replacementViews(s),
    status_changes: (s.statusChanges ?? []).map((c) => ({
      code: c.code,
      at: c.at,
      detail: c.detail ?? null,
    })),
    warnings: warningViews(s),
    recording: deleted ? null : recordingSummary(s),
    data_deleted_at: s.dataDeletedAt ?? null,
  };
}
