// Port: bot sessions, one record per bot; a step of the bot's life is written only from a state it may leave.
import type { Step } from '../bots/lifecycle';
import type {
  BotSession,
  RecordingFileInfo,
  Replacement,
  SessionClaim,
  SessionWarning,
  StatusChange,
} from '../bots/session';
import type { CreditHold } from './credit-ledger';

export type StopRequestOutcome = 'requested' | 'not_found' | 'not_running';

/** Where a page of an account's bots ends: the next page starts after it. */
export interface SessionCursor {
  createdAt: string;
  botId: string;
}

/** A scheduled session waiting for its start to be queued (sessions-store `listScheduled`). */
export interface ScheduledJoin {
  botId: string;
  joinAt: string;
}

export interface SessionsStore {
  /**
   * Writes a new session. The join's `hold` is recorded in the ledger by the same write, so a session never exists
   * without its hold's entry. Not listed for the
   * retention sweep: its end is (core/data/retention.ts listForRetention).
   */
  create(session: BotSession, hold?: CreditHold): Promise<void>;
  /**
   * One page of an account's bots, newest first, summary fields only (never text or results). `status` filters;
   * then the page may hold fewer than `limit` bots while `next` still points further back.
   */
  listForAccount(
    accountId: string,
    options: { limit: number; status?: BotSession['status']; before?: SessionCursor },
  ): Promise<{ sessions: BotSession[]; next?: SessionCursor }>;
  /** Ids of every running session (eventually consistent). */
  listRunning(): Promise<string[]>;
  get(botId: string): Promise<BotSession | null>;
  /**
   * Records a stop request on a running session (first request time wins, so a repeat is harmless), on the session
   * and where the running bot looks for it (stopRequested).
   */
  requestStop(botId: string, now?: Date): Promise<StopRequestOutcome>;
  /**
   * Whether a stop was requested: what the running bot polls every STOP_POLL_MS, a read of a small item of its own
   * rather than of the whole session. May lag a request by about a second.
   */
  stopRequested(botId: string): Promise<boolean>;
  /**
   * Writes a step of the bot's life (core/bots/lifecycle.ts): its changes, only while the session is in a state the
   * step leaves (`leaves`), so a writer that read an older state, or lost a race, writes nothing. False then (or with
   * no such session). Ending a session (status completed or failed) goes through here too: first end wins.
   */
  writeStep(botId: string, step: Pick<Step, 'leaves' | 'changes'>): Promise<boolean>;
  /**
   * Sets fields of a running session, whatever its state: for writes that move no bot (the heartbeat's beat) and tests
   * that arrange a state. Every step of a bot's life is a writeStep (test/unit/lifecycle.test.ts keeps it so).
   */
  updateRunning(botId: string, changes: Partial<Omit<BotSession, 'botId' | 'accountId'>>): Promise<boolean>;
  /**
   * Records that the task serving attempt `attempt` was lost and a replacement takes over: only while the session
   * runs, was not asked to stop and did not leave, and has exactly `attempt` replacements (so two reports of one loss
   * replace once). False otherwise.
   */
  addReplacement(botId: string, attempt: number, replacement: Replacement): Promise<boolean>;
  /**
   * Records an event of the bot's life: appends its status change (if it is one) and, when `numbered` (it goes to the
   * webhook), takes and returns the bot's next event number (1, 2, …). Also after the session ended. With `key` (the
   * event's delivery key), the same event recorded again right after itself (a redelivered queue message) records
   * nothing and returns the number it took the first time. With `content` (its body is what was said in the meeting),
   * nothing is recorded once the session's data is deleted, and it returns null: checked in the same write, so a
   * message redriven from a DLQ long after never brings deleted content back.
   */
  recordEvent(
    botId: string,
    event: { statusChange?: StatusChange; numbered: boolean; key?: string; content?: boolean },
  ): Promise<number | undefined | null>;
  /**
   * Records a warning on the session, once per code (a replacement that hits the same failure adds nothing), also
   * after the session ended. True when it was added, false when the code was there already (or no such session).
   */
  addWarning(botId: string, warning: SessionWarning): Promise<boolean>;
  /** Sets the `index`-th replacement's task and the time it got into the room, while the session runs. */
  updateReplacement(
    botId: string,
    index: number,
    changes: Pick<Replacement, 'taskRef' | 'joinedAt'>,
  ): Promise<boolean>;
  /**
   * Takes a running session, exactly once: a pooled bot only while it is offered, unclaimed and not asked
   * to stop; a cold start while unclaimed, or (`from`) from a pooled bot lost before it joined. False when someone
   * else has it (or it ended).
   */
  claim(botId: string, claim: SessionClaim): Promise<boolean>;
  /**
   * The id of the session a pooled bot won, by its claimant id (`claimedBy`; on ECS the task's ARN): the task-stopped
   * handler's way from a stopped pooled task, whose event names only the task, to its session. Null when the bot never
   * won one (it stopped idle). The pooled claim records it; if that record could not be written the claim throws, and
   * should the bot then die before joining, the heartbeat sweep is the backstop.
   */
  sessionClaimedBy(claimant: string): Promise<string | null>;
  /**
   * The scheduled sessions whose start is not queued yet and whose join_at is in [from, to) (ISO UTC), oldest first.
   * A session with `joinAt` is listed by `create` until `unlistScheduled`.
   */
  listScheduled(from: string, to: string): Promise<ScheduledJoin[]>;
  /** Takes a scheduled session off that list (its start is queued). */
  unlistScheduled(entry: ScheduledJoin): Promise<void>;
  /**
   * Hands a scheduled session to a bot, exactly once: sets `dispatchedAt` (and `startedAt` to its join_at), and with
   * `offer` offers it to the warm pool from `at`. False when it was cancelled, ended or handed out already.
   */
  dispatchScheduled(botId: string, at: string, offer: boolean): Promise<boolean>;
  /**
   * Describes the recording assembled for a session that failed (a completed one gets it as it completes): only on a
   * failed session without one and whose content was not deleted. False otherwise.
   */
  setFailedRecordingFile(botId: string, file: RecordingFileInfo): Promise<boolean>;
  /** Removes the results (Q&A pairs, insights) from a session marked deleted; nothing on one that is not. */
  purgeContent(botId: string): Promise<void>;
}
