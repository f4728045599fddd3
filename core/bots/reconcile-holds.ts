// The hold reconciler: a credit hold whose session was never written is released.
//
// Join holds credits on the account item first and writes the session (with the hold's ledger entry) second; when
// that write fails it undoes the hold. If the undo fails too (or the process dies between the two writes), the
// hold would stay on the balance forever: no session means no bot, no settle, nothing else that ever returns it.
// This runs with the heartbeat sweep: a hold older than the grace period (so a join still in flight is never
// touched) whose session does not exist is released with a ledger entry, exactly once (credit-ledger.ts
// `releaseOrphanedHold`: deterministic entry ids and a conditional balance write, so a retry or two reconcilers at
// once release once).
//
// Holds are found through the sparse `running` index, where `reserve` lists the account (partition `HOLDS`): one
// Query for the accounts holding anything, then one read per such account, and one session read per hold older
// than the grace. Accounts whose holds are all gone are unlisted as they are seen.
import type { Config } from '../config';
import type { Stores } from '../deps';
import type { Logger } from '../log';

export interface ReconcileHoldsDeps {
  stores: Pick<Stores, 'sessions' | 'ledger'>;
  log: Logger;
}

export interface ReconcileSettings {
  /** A hold younger than this is left alone: its join may still be writing the session. */
  graceMs: number;
}

export function reconcileSettings(config: Pick<Config, 'HOLD_RECONCILE_GRACE_MS'>): ReconcileSettings {
  return { graceMs: config.HOLD_RECONCILE_GRACE_MS };
}

export interface ReleasedHold {
  accountId: string;
  botId: string;
  amount: number;
}

/** Returns the holds this run released (a hold another run released meanwhile is not listed). */
export async function reconcileHolds(
  deps: ReconcileHoldsDeps,
  settings: ReconcileSettings,
  now = new Date(),
): Promise<ReleasedHold[]> {
  const { ledger, sessions } = deps.stores;
  const released: ReleasedHold[] = [];
  for (const accountId of await ledger.accountsWithHolds()) {
    try {
      const holds = await ledger.openHolds(accountId);
      if (holds.length === 0) {
        await ledger.unlistIfNoHolds(accountId);
        continue;
      }
      for (const hold of holds) {
        if (!hold.heldAt) {
          // Placed before holds recorded their time: its age is counted from now.
          await ledger.stampHold(accountId, hold.botId, now);
          continue;
        }
        if (now.getTime() - Date.parse(hold.heldAt) < settings.graceMs) continue;
        // A hold whose session exists is the session's to settle (task-stopped, the heartbeat sweep).
        if (await sessions.get(hold.botId)) continue;
        if (await ledger.releaseOrphanedHold(accountId, hold, now)) {
          released.push({ accountId, botId: hold.botId, amount: hold.amount });
          deps.log.warn('released a hold whose session was never written', {
            account_id: accountId,
            bot_id: hold.botId,
            held_at: hold.heldAt,
            amount: hold.amount,
          });
        }
      }
    } catch (err) {
      // One account's failure does not stop the others; the next run retries it.
      deps.log.warn('could not reconcile the holds of an account', { account_id: accountId, err });
    }
  }
  return released;
}
