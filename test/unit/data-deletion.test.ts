// The deletion use case's steps, on fake stores: the deadline is checked between pages, a deletion done removes its
// pending entries (a repeat's and the first's), one cut off keeps them, and the sweep step takes only those past the grace.
import { describe, expect, it } from 'vitest';
import type { Caller } from '../../core/accounts/authenticate';
import type { BotSession } from '../../core/bots/session';
import type { OutboxMessage } from '../../core/control/outbox';
import {
  type DataDeletionDeps,
  deleteMeetingData,
  finishPendingDeletions,
  pendingDeletionGraceMs,
  requestDeletionBudgetMs,
  sweepDeletionBudgetMs,
} from '../../core/data/delete-meeting-data';
import type { ServiceDeps } from '../../core/deps';
import { ApiError } from '../../core/errors';
import { createLogger } from '../../core/log';
import type { DataDeletionMark, PendingDeletion, PurgeCursor } from '../../core/ports/data-deletions';
import { dataRoute } from '../../functions/http/routes';
import { functionLimits, routeLimits } from '../../infra/limits';

const botId = '0193a1b2-0000-7000-8000-000000000001';
const t0 = Date.parse('2026-11-28T06:00:00Z');

/** Fake stores: `pages` pages of segments and of deliveries, every call logged, a clock moved by each page. */
function fakes(opts: { pages?: number; mark?: DataDeletionMark['outcome']; recorded?: boolean } = {}) {
  const pages = opts.pages ?? 3;
  const calls: string[] = [];
  let clock = t0;
  const pending: PendingDeletion[] = [];
  const paged = (name: string) => async (_bot: string, from?: PurgeCursor) => {
    const page = Number(from?.page ?? 0);
    calls.push(`${name} ${page}`);
    clock += 1_000;
    return page + 1 < pages ? { page: page + 1 } : undefined;
  };
  const session = {
    botId,
    accountId: 'acct',
    dataDeletedAt: new Date(t0).toISOString(),
    ...(opts.recorded !== false && { recording: { audio: true } }),
  } as BotSession;
  const sent: OutboxMessage[] = [];
  const deps: DataDeletionDeps = {
    stores: {
      transcripts: { purgePage: paged('segments') },
      deliveries: {
        purgeContent: (b: string, _at: Date, from?: PurgeCursor) => paged('deliveries')(b, from),
      },
      sessions: {
        purgeContent: async () => void calls.push('session'),
        get: async () => session,
      },
      deletions: {
        mark: async (_bot: string, at: Date) => {
          pending.push({ botId, startedAt: at.toISOString() });
          const outcome = opts.mark ?? 'marked';
          if (outcome === 'running' || outcome === 'not_found') return { outcome };
          return {
            outcome,
            dataDeletedAt: outcome === 'marked' ? at.toISOString() : '2026-11-01T00:00:00.000Z',
          };
        },
        listPending: async (upTo: string) => pending.filter((p) => p.startedAt <= upTo),
        finished: async (...entries: PendingDeletion[]) => {
          calls.push(`finished ${entries.map((e) => e.startedAt).join(' ')}`);
          for (const e of entries) {
            const i = pending.findIndex((p) => p.startedAt === e.startedAt);
            if (i >= 0) pending.splice(i, 1);
          }
        },
      },
    } as unknown as DataDeletionDeps['stores'],
    recordings: { deleteAll: async () => void calls.push('recording') },
    outbox: { send: async (m) => void sent.push(m) },
    log: createLogger('silent'),
    now: () => new Date(clock),
  };
  return { deps, calls, sent, pending, session };
}

describe('deleteMeetingData', () => {
  it('purges every store page by page, in order, then removes its pending entry: data_deleted', async () => {
    const { deps, calls, sent, pending, session } = fakes();
    const out = await deleteMeetingData(deps, session, 'requested');
    expect(out.status).toBe('data_deleted');
    expect(calls).toEqual([
      'segments 0',
      'segments 1',
      'segments 2',
      'deliveries 0',
      'deliveries 1',
      'deliveries 2',
      'recording',
      'session',
      `finished ${new Date(t0).toISOString()}`,
    ]);
    expect(pending).toEqual([]);
    expect(sent).toHaveLength(1);
  });

  it('stops between two pages once the deadline passed: deleting, the entry kept, the event sent before', async () => {
    const { deps, calls, sent, pending, session } = fakes();
    // Each page moves the clock a second: two pages fit before the deadline, the third is not begun.
    const out = await deleteMeetingData({ ...deps, deadline: new Date(t0 + 2_000) }, session, 'requested');
    expect(out).toMatchObject({ status: 'deleting', data_deleted_at: new Date(t0).toISOString() });
    expect(calls).toEqual(['segments 0', 'segments 1']);
    expect(pending).toHaveLength(1);
    expect(sent.map((m) => m.kind === 'bot_event' && m.event)).toEqual(['bot.data_deleted']);
  });

  it('a repeat that finishes removes its own entry and the first deletion’s, and announces nothing', async () => {
    const { deps, calls, sent, session } = fakes({ mark: 'already', recorded: false });
    const out = await deleteMeetingData(deps, session, 'requested');
    expect(out).toEqual({
      bot_id: botId,
      status: 'data_deleted',
      data_deleted_at: '2026-11-01T00:00:00.000Z',
    });
    // A session that was not recorded: the bucket is not asked.
    expect(calls).not.toContain('recording');
    expect(calls.at(-1)).toBe(`finished ${new Date(t0).toISOString()} 2026-11-01T00:00:00.000Z`);
    expect(sent).toEqual([]);
  });

  it('a running bot is refused before anything is purged', async () => {
    const { deps, calls, session } = fakes({ mark: 'running' });
    await expect(deleteMeetingData(deps, session, 'requested')).rejects.toBeInstanceOf(ApiError);
    expect(calls).toEqual([]);
  });
});

describe('finishPendingDeletions', () => {
  it('takes only deletions past the grace, finishes them, and stops at its deadline', async () => {
    const { deps, calls, pending, session } = fakes();
    await deleteMeetingData({ ...deps, deadline: new Date(t0) }, session, 'requested');
    expect(pending).toHaveLength(1);
    expect((await finishPendingDeletions(deps)).finished).toEqual([]);

    const later = t0 + pendingDeletionGraceMs + 10_000;
    const cut = await finishPendingDeletions({
      ...deps,
      now: () => new Date(later),
      deadline: new Date(later),
    });
    expect(cut.finished).toEqual([]);
    expect(pending).toHaveLength(1);

    calls.length = 0;
    const sweep = await finishPendingDeletions({ ...deps, now: () => new Date(later) });
    expect(sweep).toEqual({ finished: [botId], failed: [] });
    expect(calls).toContain('session');
    expect(pending).toEqual([]);
  });
});

describe('DELETE /api/bot/{bot_id}/data (the route)', () => {
  it('answers 202 deleting once its budget is spent, 200 data_deleted when the purge finished', async () => {
    for (const [msPerLook, status, answer] of [
      [requestDeletionBudgetMs, 202, 'deleting'],
      [1, 200, 'data_deleted'],
    ] as const) {
      const { deps, session } = fakes();
      let clock = t0;
      const reply = await dataRoute({
        deps: {
          ...deps.stores,
          sessions: { ...deps.stores.sessions, get: async () => ({ ...session, dataDeletedAt: undefined }) },
          recordings: () => deps.recordings,
          outbox: deps.outbox,
          log: deps.log,
          // Each look at the clock moves it on: with the budget's length, the first page already finds it spent.
          now: () => {
            clock += msPerLook;
            return new Date(clock);
          },
          statusCache: { forget: () => {} },
        } as unknown as ServiceDeps,
        event: { pathParameters: { bot_id: botId } } as never,
        caller: { accountId: 'acct' } as Caller,
      });
      expect(reply.status).toBe(status);
      expect(reply.body).toMatchObject({ bot_id: botId, status: answer });
    }
  });
});

describe('deletion budgets', () => {
  it('leave room in their functions: the data route (authentication, the mark, one last page, the answer) and the sweeper', () => {
    // One page (a Query and its writes, or the recording's objects) may still run past the deadline: seconds, not more.
    expect(requestDeletionBudgetMs).toBeLessThanOrEqual(routeLimits('data').timeoutSeconds * 1000 - 3_000);
    // The sweeper also sweeps heartbeats, holds and retention within its timeout.
    expect(sweepDeletionBudgetMs).toBeLessThanOrEqual((functionLimits.sweeper.timeoutSeconds * 1000) / 3);
    // A deletion the sweeper takes up is older than any run of the data function.
    expect(pendingDeletionGraceMs).toBeGreaterThan(routeLimits('data').timeoutSeconds * 1000);
  });
});
