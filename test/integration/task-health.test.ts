// Noticing dead bots: the heartbeat sweeper and the ECS task-state handler, against dynalite.
import type { EventBridgeEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sweepStaleSessions } from '../../core/bots/sweep-stale';
import type { TaskStoppedDeps } from '../../core/bots/task-stopped';
import { createLogger } from '../../core/log';
import type { ResultsMessage } from '../../core/results/messages';
import { type EcsTaskStateDetail, makeTaskStoppedHandler } from '../../functions/ops/task-stopped';
import { startTestStack, type TestStack } from '../support/local-stack';

let stack: TestStack;
let key: string;
const sent: ResultsMessage[] = [];
let deps: TaskStoppedDeps;

beforeAll(async () => {
  stack = await startTestStack();
  stack.deps.runner = { start: async (id) => ({ taskRef: `arn:task/${id}` }), stop: async () => {} };
  ({ apiKey: key } = await stack.account(50));
  deps = {
    stores: stack.deps,
    config: stack.config,
    results: { send: async (m) => void sent.push(m as ResultsMessage) },
    log: createLogger('silent'),
  };
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
  it('fails a session whose heartbeat is stale, keeps the fresh ones, and queues bot_failed', async () => {
    const stale = await runningBot(120_000);
    const fresh = await runningBot(1_000);
    const starting = await runningBot();
    // The stale bot had got into the room (it has words in its transcript): a bot lost after joining is bot_failed.
    // (One lost before it ever joined sends bot_join_failed: test/integration/exit-semantics.test.ts.)
    await stack.deps.sessions.updateRunning(stale, {
      joinedAt: new Date(Date.now() - 300_000).toISOString(),
    });
    await stack.deps.transcripts.saveSegment(stale, 1, [
      { speaker: 'Ann', participant_id: 'a', started_at: new Date().toISOString(), text: 'partial words' },
    ]);
    const failed = await sweepStaleSessions(deps, { staleMs: 60_000, startupGraceMs: 600_000 });
    expect(failed).toContain(stale);
    expect(failed).not.toContain(fresh);
    expect(failed).not.toContain(starting);
    expect(await stack.deps.sessions.get(stale)).toMatchObject({
      status: 'failed',
      transcript: 'Ann: partial words',
      error: expect.stringMatching(/no heartbeat/),
    });
    expect(await stack.deps.sessions.get(fresh)).toMatchObject({ status: 'running' });
    expect(sent.find((m) => m.bot_id === stale)).toMatchObject({
      kind: 'bot_failed',
      event: { event_type: 'bot_failed' },
    });
    expect(await stack.deps.sessions.listRunning()).not.toContain(stale);
  });

  it('fails a bot that never started after the start-up grace', async () => {
    const never = await runningBot();
    const later = new Date(Date.now() + 11 * 60_000);
    const failed = await sweepStaleSessions(deps, { staleMs: 60_000, startupGraceMs: 600_000 }, later);
    expect(failed).toContain(never);
    expect((await stack.deps.sessions.get(never))?.error).toMatch(/never started/);
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
