// A pooled ECS task that stops, against dynalite: its event names only the task (started by the pool's
// service, no BOT_ID), so the claim records the session under the claimant (on ECS the task ARN) and the task-stopped
// handler finds it there. An idle pooled task that stops changes nothing; one lost before joining falls back to a cold
// start; one lost in the room is replaced; one that finished is left alone.
import type { EventBridgeEvent } from 'aws-lambda';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { coldClaimant } from '../../core/bots/session';
import { startBot } from '../../core/bots/start-bot';
import type { TaskStoppedDeps } from '../../core/bots/task-stopped';
import type { OutboxMessage } from '../../core/control/outbox';
import type { ServiceDeps } from '../../core/deps';
import { createLogger } from '../../core/log';
import { type EcsTaskStateDetail, makeTaskStoppedHandler } from '../../functions/ops/task-stopped';
import { startTestStack, type TestStack } from '../support/local-stack';

let stack: TestStack;
let accountId: string;
let poolJoin: ServiceDeps;
const sent: OutboxMessage[] = [];
let deps: TaskStoppedDeps;

beforeAll(async () => {
  stack = await startTestStack();
  ({ accountId } = await stack.account(50));
  const outbox = { send: async (m: unknown) => void sent.push(m as OutboxMessage) };
  // The join with the pool on: it offers the session; the fallback message is only recorded.
  poolJoin = { ...stack.deps, config: { ...stack.deps.config, BOT_POOL_SIZE: 2 }, outbox };
  deps = { stores: stack.deps, config: stack.config, outbox, log: createLogger('silent') };
});
afterAll(() => stack?.close());
beforeEach(() => {
  sent.length = 0;
});

let n = 0;
const taskArn = () =>
  `arn:aws:ecs:us-east-1:123456789012:task/MeetingBot-dev-Cluster/${(++n).toString(16).padStart(32, '0')}`;

async function offered(): Promise<string> {
  const res = await startBot(
    poolJoin,
    { accountId, keyId: 'k' },
    { provider: 'local', room_url: `http://127.0.0.1:1/rooms/pooled-${++n}` },
    undefined,
  );
  // The join's own delayed fallback is not what these tests look at.
  sent.length = 0;
  return (res.body as { bot_id: string }).bot_id;
}

const claimed = (botId: string, by: string) =>
  stack.deps.sessions.claim(botId, { by, path: 'pool', at: new Date().toISOString() });

/** The event ECS sends for a task of the pool's service: startedBy is the service's deployment, no overrides. */
const stoppedEvent = (arn: string, exitCode: number, stopCode = 'EssentialContainerExited') =>
  ({
    detail: {
      taskArn: arn,
      lastStatus: 'STOPPED',
      startedBy: 'ecs-svc/1234567890123456789',
      stopCode,
      containers: [{ name: 'bot', exitCode }],
    },
  }) as EventBridgeEvent<'ECS Task State Change', EcsTaskStateDetail>;

const handler = () => makeTaskStoppedHandler(deps, 'bot');

describe('the pooled claim’s record (sessions store)', () => {
  it('names the session a pooled bot won, under that bot; a loser and a cold claim record nothing', async () => {
    const botId = await offered();
    const [winner, loser] = [taskArn(), taskArn()];
    expect(await stack.deps.sessions.sessionClaimedBy(winner)).toBeNull();
    expect(await claimed(botId, winner)).toBe(true);
    expect(await claimed(botId, loser)).toBe(false);
    expect(await stack.deps.sessions.sessionClaimedBy(winner)).toBe(botId);
    expect(await stack.deps.sessions.sessionClaimedBy(loser)).toBeNull();

    const cold = await offered();
    expect(
      await stack.deps.sessions.claim(cold, { by: coldClaimant, path: 'cold', at: new Date().toISOString() }),
    ).toBe(true);
    expect(await stack.deps.sessions.sessionClaimedBy(coldClaimant)).toBeNull();
  });
});

describe('task-stopped of a pooled task', () => {
  it('changes nothing when the task stopped idle (it claimed no session)', async () => {
    const botId = await offered();
    expect(await handler()(stoppedEvent(taskArn(), 0, 'ServiceSchedulerInitiated'))).toEqual({
      outcome: 'ignored',
    });
    expect(await handler()(stoppedEvent(taskArn(), 137))).toEqual({ outcome: 'ignored' });
    expect(sent).toEqual([]);
    expect(await stack.deps.sessions.get(botId)).toMatchObject({
      status: 'running',
      poolOfferedAt: expect.any(String),
    });
  });

  it('falls back to a cold start, moving the claim from that task only, when it died before joining', async () => {
    const botId = await offered();
    const arn = taskArn();
    expect(await claimed(botId, arn)).toBe(true);
    expect(await handler()(stoppedEvent(arn, 137))).toEqual({ outcome: 'falling_back' });
    expect(sent).toEqual([
      expect.objectContaining({
        kind: 'start_cold',
        bot_id: botId,
        claimant: arn,
        reason: expect.stringContaining('137'),
      }),
    ]);
  });

  it('replaces the bot when it died in the room', async () => {
    const botId = await offered();
    const arn = taskArn();
    expect(await claimed(botId, arn)).toBe(true);
    await stack.deps.sessions.updateRunning(botId, { joinedAt: new Date().toISOString() });
    expect(await handler()(stoppedEvent(arn, 143, 'TaskFailedToStart'))).toEqual({ outcome: 'replacing' });
    expect(sent).toEqual([expect.objectContaining({ kind: 'replace_bot', bot_id: botId })]);
  });

  it('leaves a pooled task that finished its session (exit 0) alone', async () => {
    const botId = await offered();
    const arn = taskArn();
    expect(await claimed(botId, arn)).toBe(true);
    expect(await handler()(stoppedEvent(arn, 0))).toEqual({ outcome: 'already_ended' });
    expect(sent).toEqual([]);
  });
});
