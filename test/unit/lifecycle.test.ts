import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { completeSession, failSession } from '../../core/bots/finish-session';
import {
  BotLife,
  type BotState,
  botStates,
  IllegalTransitionError,
  lifecycle,
  plan,
  runningStates,
  type Step,
  type StoredTest,
  stateOf,
  storedCondition,
  type Transition,
  type TransitionInputs,
  transitions,
} from '../../core/bots/lifecycle';
import type { BotSession } from '../../core/bots/session';

const at = '2026-01-01T00:00:00.000Z';
const inputs: { [T in Transition]: TransitionInputs[T] } = {
  start: { startedAt: at },
  cancel: { completedAt: at },
  claim: { by: 'pool-1', path: 'pool', at, taskRef: 'arn:task/1' },
  record_task: { taskRef: 'arn:task/2' },
  announce: {},
  wait_in_lobby: {},
  admit: { joinedAt: at },
  rejoin: { attempt: 2, joinedAt: at },
  lose: { attempt: 1, at, reason: 'crashed' },
  request_stop: { at },
  leave: { exitReason: 'stop_phrase', leftAt: at },
  hand_over: {},
  resend_handover: { at, resends: 3 },
  save_results: { qaPairs: [], insights: null, insightsError: 'throttled' },
  complete: { completedAt: at, exitReason: 'participant_left', qaPairs: [], insights: null },
  fail: { completedAt: at, error: 'lost', errorCode: 'transcription_unavailable' },
};

const live = ['joining', 'waiting_room', 'in_call', 'replacing', 'leaving'] as const;
type Expected = {
  to: BotState;
  changes: Step['changes'];
  replacement?: Step['replacement'];
  emits: string[];
};
/** The documented table, written out independently of the module: every allowed (state, transition) pair. */
const allowed: Partial<Record<BotState, Partial<Record<Transition, Expected>>>> = {};
function allow(states: readonly BotState[], t: Transition, e: (from: BotState) => Expected) {
  for (const s of states) allowed[s] = { ...allowed[s], [t]: e(s) };
}
allow(['scheduled'], 'start', () => ({ to: 'joining', changes: { startedAt: at }, emits: [] }));
allow(['scheduled'], 'cancel', () => ({
  to: 'done',
  changes: { status: 'completed', completedAt: at, exitReason: 'force_leave' },
  emits: ['bot.done', 'session_complete'],
}));
allow(['joining', 'waiting_room'], 'claim', (s) => ({
  to: s,
  changes: { claimedBy: 'pool-1', claimedAt: at, startPath: 'pool', taskRef: 'arn:task/1' },
  emits: [],
}));
allow(['joining', 'waiting_room', 'replacing'], 'record_task', (s) => ({
  to: s,
  changes: { taskRef: 'arn:task/2' },
  emits: [],
}));
allow(['joining'], 'announce', () => ({ to: 'joining', changes: {}, emits: ['bot.joining'] }));
allow(['joining', 'replacing'], 'wait_in_lobby', () => ({
  to: 'waiting_room',
  changes: {},
  emits: ['bot.in_waiting_room'],
}));
allow(['joining', 'waiting_room'], 'admit', () => ({
  to: 'in_call',
  // The transcript mark rides the join write: the bot's first segment needs no write of its own.
  changes: { joinedAt: at, transcriptAt: at },
  emits: ['bot.in_call'],
}));
allow(['replacing', 'waiting_room'], 'rejoin', () => ({
  to: 'in_call',
  changes: {},
  replacement: { index: 1, set: { joinedAt: at } },
  emits: [],
}));
allow(['in_call', 'replacing'], 'lose', () => ({
  to: 'replacing',
  changes: {},
  replacement: { index: 1, set: { at, reason: 'crashed' } },
  emits: ['bot.replaced'],
}));
allow(['scheduled', ...live], 'request_stop', () => ({
  to: 'leaving',
  changes: { stopRequestedAt: at },
  emits: [],
}));
allow(live, 'leave', () => ({
  to: 'leaving',
  changes: { exitReason: 'stop_phrase', leftAt: at },
  emits: ['bot.left', 'session_ended'],
}));
allow(['leaving'], 'hand_over', () => ({ to: 'leaving', changes: {}, emits: ['session_ended'] }));
allow(['leaving'], 'resend_handover', () => ({
  to: 'leaving',
  changes: { handoverResentAt: at, handoverResends: 3 },
  emits: [],
}));
allow(['leaving'], 'save_results', () => ({
  to: 'leaving',
  changes: { qaPairs: [], insights: null, insightsError: 'throttled' },
  emits: [],
}));
allow(['leaving'], 'complete', () => ({
  to: 'done',
  changes: {
    status: 'completed',
    completedAt: at,
    exitReason: 'participant_left',
    qaPairs: [],
    insights: null,
    insightsError: undefined,
  },
  emits: ['bot.done', 'session_complete'],
}));
allow(live, 'fail', (s) => ({
  to: 'failed',
  changes: { status: 'failed', completedAt: at, error: 'lost', errorCode: 'transcription_unavailable' },
  emits: s === 'joining' || s === 'waiting_room' ? ['bot_join_failed'] : ['bot_failed'],
}));

describe('the bot lifecycle', () => {
  it('names the states and transitions the docs list', () => {
    expect(botStates).toEqual([
      'scheduled',
      'joining',
      'waiting_room',
      'in_call',
      'replacing',
      'leaving',
      'done',
      'failed',
    ]);
    expect(transitions.sort()).toEqual(Object.keys(inputs).sort());
  });

  for (const from of botStates) {
    for (const t of transitions) {
      const expected = allowed[from]?.[t];
      if (expected) {
        it(`${from} → ${t}: allowed, to ${expected.to}, with its writes and events`, () => {
          const step = plan(from, t, inputs[t] as never);
          expect(step).toEqual({ from, transition: t, leaves: lifecycle[t].from, ...expected });
          // Every write is one of the fields the table documents.
          const written = [...Object.keys(step.changes), ...(step.replacement ? ['replacements'] : [])];
          for (const f of written) expect(lifecycle[t].fields).toContain(f);
        });
      } else {
        it(`${from} → ${t}: refused`, () => {
          const life = new BotLife(from, 'bot-1');
          expect(() => life.step(t, inputs[t] as never)).toThrow(IllegalTransitionError);
          expect(life.state).toBe(from);
          try {
            life.step(t, inputs[t] as never);
          } catch (err) {
            expect(err).toMatchObject({ code: 'illegal_transition', from, transition: t });
            expect((err as Error).message).toContain(`cannot ${t} from ${from}`);
          }
        });
      }
    }
  }

  it('scheduled only goes on to joining, is cancelled (done) or asked to stop (leaving, then done)', () => {
    const out = transitions.filter((t) => allowed.scheduled?.[t]).map((t) => allowed.scheduled![t]!.to);
    expect(out.sort()).toEqual(['done', 'joining', 'leaving']);
  });

  it('done and failed are final', () => {
    for (const t of transitions) {
      expect(allowed.done?.[t]).toBeUndefined();
      expect(allowed.failed?.[t]).toBeUndefined();
    }
  });

  it('a bot walks its ordinary life, a lost one its replacement', () => {
    const life = new BotLife('joining');
    life.step('announce', {});
    life.step('wait_in_lobby', {});
    life.step('admit', { joinedAt: at });
    life.step('lose', { attempt: 0, at, reason: 'x' });
    expect(life.step('rejoin', { attempt: 1, joinedAt: at }).replacement).toEqual({
      index: 0,
      set: { joinedAt: at },
    });
    life.step('leave', { exitReason: 'participant_left', leftAt: at });
    life.step('complete', { completedAt: at, exitReason: 'participant_left' });
    expect(life.state).toBe('done');
    expect(() => life.step('leave', { exitReason: 'force_leave', leftAt: at })).toThrow(
      /cannot leave from done/,
    );
  });

  it('reads the state from a stored session', () => {
    const base = { status: 'running' as const };
    expect(stateOf(base)).toBe('joining');
    expect(stateOf({ ...base, joinAt: at })).toBe('scheduled');
    expect(stateOf({ ...base, joinAt: at, dispatchedAt: at })).toBe('joining');
    expect(stateOf({ ...base, joinAt: at, stopRequestedAt: at })).toBe('leaving');
    expect(stateOf({ ...base, statusChanges: [{ code: 'in_waiting_room', at }] })).toBe('waiting_room');
    expect(stateOf({ ...base, joinedAt: at })).toBe('in_call');
    expect(stateOf({ ...base, joinedAt: at, replacements: [{ at, reason: 'x' }] })).toBe('replacing');
    expect(stateOf({ ...base, joinedAt: at, replacements: [{ at, reason: 'x', joinedAt: at }] })).toBe(
      'in_call',
    );
    expect(stateOf({ ...base, joinedAt: at, stopRequestedAt: at })).toBe('leaving');
    expect(stateOf({ ...base, leftAt: at })).toBe('leaving');
    expect(stateOf({ status: 'completed', leftAt: at })).toBe('done');
    expect(stateOf({ status: 'failed' })).toBe('failed');
  });
});

/** Stored sessions in each state, every way the store can see it. */
const storedSessions: Record<BotState, (Partial<BotSession> & Pick<BotSession, 'status'>)[]> = {
  scheduled: [{ status: 'running', joinAt: at }],
  joining: [{ status: 'running' }, { status: 'running', joinAt: at, dispatchedAt: at }],
  waiting_room: [{ status: 'running', statusChanges: [{ code: 'in_waiting_room', at }] }],
  in_call: [
    { status: 'running', joinedAt: at },
    { status: 'running', joinAt: at, dispatchedAt: at, joinedAt: at },
    { status: 'running', joinedAt: at, replacements: [{ at, reason: 'x', joinedAt: at }] },
  ],
  replacing: [{ status: 'running', joinedAt: at, replacements: [{ at, reason: 'x' }] }],
  leaving: [
    { status: 'running', joinedAt: at, leftAt: at },
    { status: 'running', stopRequestedAt: at },
    { status: 'running', joinAt: at, stopRequestedAt: at },
  ],
  done: [{ status: 'completed', leftAt: at }],
  failed: [{ status: 'failed', joinedAt: at }],
};
/** What DynamoDB makes of a condition (sessions-store inStates): a test of the status and of fields set or not. */
const holds = (tests: StoredTest[], s: Partial<BotSession>) =>
  tests.some((test) =>
    Object.entries(test).every(([f, v]) =>
      f === 'status' ? s.status === v : (s[f as keyof BotSession] !== undefined) === v,
    ),
  );
/** States the stored session cannot tell apart: a list's last element is beyond a condition (lifecycle.ts storedAs). */
const twin: Partial<Record<BotState, BotState>> = {
  joining: 'waiting_room',
  waiting_room: 'joining',
  in_call: 'replacing',
  replacing: 'in_call',
};

describe('the store writes a step only from a state it leaves', () => {
  it('the stored sessions are in the states they stand for', () => {
    for (const state of botStates) for (const s of storedSessions[state]) expect(stateOf(s)).toBe(state);
  });

  for (const t of transitions) {
    it(`${t}: its write's condition holds in its from states and no other`, () => {
      const { from } = lifecycle[t];
      for (const state of botStates) {
        const twinAllowed = twin[state] !== undefined && from.includes(twin[state]);
        for (const s of storedSessions[state])
          expect([state, holds(storedCondition(from), s)]).toEqual([
            state,
            from.includes(state) || twinAllowed,
          ]);
      }
    });
  }

  it('a write that moves no bot holds in every running state', () => {
    expect(storedCondition(runningStates)).toEqual([{ status: 'running' }]);
  });

  it('production code writes a step only through writeStep (updateRunning: the heartbeat alone)', () => {
    const callers = ['core', 'bot-task', 'functions', 'local', 'admin', 'infra'].flatMap((dir) =>
      readdirSync(dir, { recursive: true, encoding: 'utf8' })
        .filter((f) => /\.(ts|mjs)$/.test(f) && !f.endsWith('.test.ts'))
        .map((f) => `${dir}/${f}`)
        .filter((f) => /\.updateRunning\(/.test(readFileSync(f, 'utf8'))),
    );
    expect(callers).toEqual(['bot-task/heartbeat.ts']);
  });
});

const plusDays = (iso: string, days: number) => new Date(Date.parse(iso) + days * 86_400_000).toISOString();

describe('the writers go through it', () => {
  function fakeStores(session: Partial<BotSession>) {
    const writes: unknown[] = [];
    const settled: number[] = [];
    const deps = {
      sessions: {
        get: async () =>
          ({ botId: 'b', accountId: 'a', createdAt: at, startedAt: at, ...session }) as BotSession,
        writeStep: async (_id: string, step: { changes: unknown }) => {
          writes.push(step.changes);
          return true;
        },
      },
      // The account keeps content two days: the entry is due at the end plus two days.
      accounts: { get: async () => ({ accountId: 'a', retentionDays: 2 }) },
      retention: {
        add: async (_botId: string, due: string) => {
          writes.push({ retentionDue: due });
        },
      },
      ledger: {
        settle: async (_a: string, _b: string, amount: number) => {
          settled.push(amount);
        },
      },
      config: { CREDITS_PER_MINUTE: 1, RETENTION_DAYS: 30 },
    } as unknown as Parameters<typeof completeSession>[0];
    return { deps, writes, settled };
  }

  it('a completion without a known leave time passes through the leave and writes no left_at', async () => {
    const { deps, writes, settled } = fakeStores({ status: 'running', joinedAt: at });
    expect(await completeSession(deps, 'b', { exitReason: 'participant_left' })).toBe(true);
    // The retention sweep's entry first (due at the completion plus the account's two days), then the completion.
    expect(writes).toHaveLength(2);
    const { completedAt } = writes[1] as { completedAt: string };
    expect(writes[0]).toEqual({ retentionDue: plusDays(completedAt, 2) });
    expect(writes[1]).not.toHaveProperty('leftAt');
    expect(settled).toHaveLength(1);
  });

  it('a leave the bot could not write is written with the completion (leave, then complete)', async () => {
    const { deps, writes } = fakeStores({ status: 'running', joinedAt: at });
    const leftAt = '2026-01-01T00:10:00.000Z';
    await completeSession(deps, 'b', { exitReason: 'stop_phrase', endedAt: leftAt }, new Date(leftAt));
    expect(writes).toEqual([
      { retentionDue: plusDays(leftAt, 2) },
      expect.objectContaining({
        leftAt,
        status: 'completed',
        exitReason: 'stop_phrase',
        completedAt: leftAt,
      }),
    ]);
  });

  it('a failure lists the session for retention before its final write', async () => {
    const { deps, writes, settled } = fakeStores({ status: 'running', joinedAt: at });
    const now = new Date('2026-01-01T01:00:00.000Z');
    expect(await failSession(deps, 'b', { error: 'lost', chargeUsage: true }, now)).toBe(true);
    expect(writes).toEqual([
      { retentionDue: plusDays(now.toISOString(), 2) },
      expect.objectContaining({ status: 'failed', error: 'lost' }),
    ]);
    expect(settled).toHaveLength(1);
  });

  it('an ended session is neither failed nor completed again', async () => {
    const { deps, writes, settled } = fakeStores({ status: 'completed', leftAt: at });
    expect(await failSession(deps, 'b', { error: 'x', chargeUsage: true })).toBe(false);
    expect(await completeSession(deps, 'b', { exitReason: 'force_leave', endedAt: at })).toBe(false);
    expect(writes).toEqual([]);
    expect(settled).toEqual([]);
  });
});
