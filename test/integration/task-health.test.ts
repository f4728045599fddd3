// Noticing dead bots: the heartbeat sweeper and the ECS task-state handler, against dynalite.
import type { EventBridgeEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replaceBot, replaceRequest } from '../../core/bots/replace-bot';
import { sweepStaleSessions } from '../../core/bots/sweep-stale';
import type { TaskStoppedDeps } from '../../core/bots/task-stopped';
import type { OutboxMessage } from '../../core/control/outbox';
import { type EcsTaskStateDetail, makeTaskStoppedHandler } from '../../functions/ops/task-stopped';
import { startTestStack, type TestStack } from '../support/local-stack';

let stack: TestStack;
let key: string;
const sent: OutboxMessage[] = [];
let deps: TaskStoppedDeps;

beforeAll(async () => {
  stack = await startTestStack();
  stack.deps.runner = { start: async (id) => ({ taskRef: `arn:task/${id}` }), stop: async () => {} };
  ({ apiKey: key } = await stack.account(50));
  deps = stack.taskStoppedDeps(sent);
});
afterAll(() => stack?.close());

async function runningBot(heartbeatAgoMs?: number): Promise<string> {
  const res = await stack.request('POST', '/api/bot/join', {
    key,
    body: { room_url: 'https://a.daily.co/health' },
  });
  const botId = res.body.bot_id as string;
  if (heartbeatAgoMs !== undefined) {
    await stack.deps.sessions.updateRunning(botId, {
      heartbeatAt: new Date(Date.now() - heartbeatAgoMs).toISOString(),
    });
  }
  return botId;
}

describe('heartbeat sweeper', () => {
  it('a stale heartbeat of a bot that was in the room asks for its replacement; with none left it fails with bot_failed', async () => {
    const stale = await runningBot(120_000);
    const exhausted = await runningBot(120_000);
    const fresh = await runningBot(1_000);
    const starting = await runningBot();
    // Both stale bots had got into the room: a bot lost after joining is replaced while replacements are left.
    // (One lost before it ever joined sends bot_join_failed: test/integration/exit-semantics.test.ts.)
    const joinedAt = new Date(Date.now() - 300_000).toISOString();
    await stack.deps.sessions.updateRunning(stale, { joinedAt });
    const lost = { at: joinedAt, reason: 'killed by SIGKILL', joinedAt };
    await stack.deps.sessions.updateRunning(exhausted, { joinedAt, replacements: [lost, lost] });
    for (const id of [stale, exhausted]) {
      await stack.deps.transcripts.saveSegment(id, 1, [
        { speaker: 'Ann', participant_id: 'a', started_at: new Date().toISOString(), text: 'partial words' },
      ]);
    }
    const failed = await sweepStaleSessions(deps, { staleMs: 60_000, startupGraceMs: 600_000 });
    expect(failed).toEqual([exhausted]);
    expect(await stack.deps.sessions.get(stale)).toMatchObject({ status: 'running' });
    expect(sent.find((m) => m.bot_id === stale)).toMatchObject({
      kind: 'replace_bot',
      attempt: 0,
      alive: false,
      reason: expect.stringMatching(/no heartbeat/),
    });
    // The partial transcript stays in its segments, where bot_failed's transcript_text is read from.
    expect(await stack.deps.sessions.get(exhausted)).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/after 2 replacements\): no heartbeat/),
    });
    expect(await stack.deps.sessions.get(fresh)).toMatchObject({ status: 'running' });
    expect(sent.find((m) => m.bot_id === exhausted)).toMatchObject({
      kind: 'bot_failed',
      event: { event_type: 'bot_failed' },
    });
    expect(await stack.deps.sessions.listRunning()).not.toContain(exhausted);
    expect(failed).not.toContain(starting);
  });

  it('a replacement still starting gets the start-up grace, counted from when it was asked for', async () => {
    const botId = await runningBot(120_000);
    const askedAt = new Date(Date.now() - 30_000).toISOString();
    await stack.deps.sessions.updateRunning(botId, {
      joinedAt: new Date(Date.now() - 300_000).toISOString(),
      replacements: [{ at: askedAt, reason: 'killed by SIGKILL' }],
    });
    sent.length = 0;
    expect(await sweepStaleSessions(deps, { staleMs: 60_000, startupGraceMs: 600_000 })).toEqual([]);
    expect(sent.filter((m) => m.bot_id === botId)).toEqual([]);
    // Past the grace it is lost too: the next replacement is asked for.
    const later = new Date(Date.parse(askedAt) + 601_000);
    await sweepStaleSessions(deps, { staleMs: 60_000, startupGraceMs: 600_000 }, later);
    expect(sent.find((m) => m.bot_id === botId)).toMatchObject({
      kind: 'replace_bot',
      attempt: 1,
      reason: 'the replacement never got into the room',
    });
  });

  it('fails a bot that never started after the start-up grace', async () => {
    const never = await runningBot();
    const later = new Date(Date.now() + 11 * 60_000);
    const failed = await sweepStaleSessions(deps, { staleMs: 60_000, startupGraceMs: 600_000 }, later);
    expect(failed).toContain(never);
    expect((await stack.deps.sessions.get(never))?.error).toMatch(/never started/);
  });
});

describe('replacement requests', () => {
  const replaceDeps = (starts: string[], fail = false) => ({
    ...deps,
    runner: {
      start: async (id: string, o?: { attempt?: number; onDemand?: boolean }) => {
        starts.push(`${id}#${o?.attempt}#${o?.onDemand}`);
        if (fail) throw new Error('no capacity');
        return { taskRef: `arn:task/${id}/${o?.attempt}` };
      },
      stop: async () => {},
    },
  });

  it('three reports of the same loss at once (task stopped, sweeper, the bot) start one replacement', async () => {
    const botId = await runningBot(1_000);
    await stack.deps.sessions.updateRunning(botId, { joinedAt: new Date().toISOString() });
    const starts: string[] = [];
    const request = replaceRequest(botId, { attempt: 0, reason: 'killed by SIGKILL', alive: false });
    const outcomes = await Promise.all([1, 2, 3].map(() => replaceBot(replaceDeps(starts), request)));
    expect(outcomes.sort()).toEqual(['replaced', 'superseded', 'superseded']);
    expect(starts).toEqual([`${botId}#1#true`]);
    const session = await stack.deps.sessions.get(botId);
    expect(session?.replacements).toEqual([
      { at: request.lost_at, reason: 'killed by SIGKILL', taskRef: `arn:task/${botId}/1` },
    ]);
    expect(session?.taskRef).toBe(`arn:task/${botId}/1`);
    // A late report about the task already replaced changes nothing.
    expect(await replaceBot(replaceDeps(starts), request)).toBe('superseded');
    expect(starts).toHaveLength(1);
  });

  it('a replacement that cannot start fails the session (its transcript kept in its segments) and bot_failed; a stopped one is not replaced', async () => {
    const botId = await runningBot(1_000);
    await stack.deps.sessions.updateRunning(botId, { joinedAt: new Date().toISOString() });
    await stack.deps.transcripts.saveSegment(botId, 1, [
      { speaker: 'Ann', participant_id: 'a', started_at: new Date().toISOString(), text: 'before the loss' },
    ]);
    sent.length = 0;
    const starts: string[] = [];
    const request = replaceRequest(botId, { attempt: 0, reason: 'killed by SIGKILL', alive: false });
    expect(await replaceBot(replaceDeps(starts, true), request)).toBe('failed');
    expect(await stack.deps.sessions.get(botId)).toMatchObject({
      status: 'failed',
      error: expect.stringMatching(/SIGKILL; no replacement could start: no capacity/),
    });
    expect(sent).toMatchObject([{ kind: 'bot_failed', bot_id: botId }]);

    // Asked to leave while its bot was lost: no replacement; the session ends force_leave.
    const stopped = await runningBot(1_000);
    await stack.deps.sessions.updateRunning(stopped, { joinedAt: new Date().toISOString() });
    await stack.deps.sessions.requestStop(stopped);
    sent.length = 0;
    const lost = replaceRequest(stopped, { attempt: 0, reason: 'killed by SIGKILL', alive: false });
    expect(await replaceBot(replaceDeps(starts), lost)).toBe('ended');
    expect(starts).toEqual([`${botId}#1#true`]);
    expect(sent).toMatchObject([{ kind: 'session_ended', bot_id: stopped, exit_reason: 'force_leave' }]);
  });
});

describe('ECS task-state handler', () => {
  const handler = () => makeTaskStoppedHandler(deps, 'bot');
  const event = (detail: Partial<EcsTaskStateDetail>) =>
    ({ detail: { taskArn: 'arn:aws:ecs:task/x', lastStatus: 'STOPPED', ...detail } }) as EventBridgeEvent<
      'ECS Task State Change',
      EcsTaskStateDetail
    >;

  it('fails a running session whose task died', async () => {
    const botId = await runningBot(1000);
    const out = await handler()(
      event({
        startedBy: botId,
        stopCode: 'EssentialContainerExited',
        containers: [{ name: 'bot', exitCode: 137, reason: 'OutOfMemoryError' }],
      }),
    );
    expect(out).toEqual({ outcome: 'failed' });
    expect((await stack.deps.sessions.get(botId))?.error).toMatch(/OutOfMemoryError.*exit code 137/);
  });

  it('leaves a task that finished (exit 0) alone', async () => {
    const botId = await runningBot(1000);
    expect(await handler()(event({ startedBy: botId, containers: [{ name: 'bot', exitCode: 0 }] }))).toEqual({
      outcome: 'already_ended',
    });
    expect(await stack.deps.sessions.get(botId)).toMatchObject({ status: 'running' });
  });

  it('ignores tasks we do not know and events that are not STOPPED', async () => {
    expect(await handler()(event({ startedBy: '00000000-0000-4000-8000-000000000000' }))).toEqual({
      outcome: 'unknown',
    });
    expect(await handler()(event({ startedBy: 'ecs-svc/123' }))).toEqual({ outcome: 'ignored' });
    expect(await handler()(event({ lastStatus: 'RUNNING', startedBy: await runningBot(1000) }))).toEqual({
      outcome: 'ignored',
    });
  });
});
