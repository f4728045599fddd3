// DynamoDB throttling as the deployed join function meets it: the recording proxy in front of moto (which never
// throttles) answers BatchWriteItem with DynamoDB's ProvisionedThroughputExceededException, so the bundled handler's
// SDK parses the wire error, retries it and gives up as on AWS. The join answers 503 dependency_unavailable with
// Retry-After, logs it at warn with its metric, and leaves nothing: no hold, no charge, no session, no task.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requires, skipReason } from '../support/requirements';
import { type DeployedLife, startDeployedLife } from './support/deployed-life';

const skip = skipReason(requires.motoServer());

describe.skipIf(skip)('a throttled DynamoDB behind the deployed join (moto)', () => {
  let life: DeployedLife;

  beforeAll(async () => {
    life = await startDeployedLife({ botPoolSize: 0 });
  }, 240_000);
  afterAll(async () => {
    await life?.close();
  });

  it("the session's write throttled: 503 dependency_unavailable, Retry-After, nothing held, charged or started", async () => {
    const { proxy, operator, account } = life;
    const before = (await operator.stores.accounts.get(account.accountId))!;
    const since = proxy.calls.length;
    proxy.fail('BatchWriteItem', {
      status: 400,
      type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
      message:
        'The level of configured provisioned throughput for the table was exceeded (injected by the test)',
    });
    const refused = await life.api('POST', '/api/bot/join', {
      body: life.joinBody('/hooks/throttled-table'),
      headers: { 'idempotency-key': 'throttled-table' },
    });
    proxy.fail('BatchWriteItem', undefined);

    expect(refused.statusCode, refused.body).toBe(503);
    expect(refused.headers['retry-after']).toBe('2');
    expect(refused.json).toMatchObject({ error: 'dependency_unavailable' });
    expect(String(refused.json.detail)).toMatch(/throttling requests; retry after 2 s/);
    // The SDK's own retries ran (maxAttempts 3) before the join gave up; no task was asked for.
    expect(life.callsOf('BatchWriteItem', since).map((c) => c.status)).toEqual([400, 400, 400]);
    expect(life.callsOf('RunTask', since)).toEqual([]);
    const after = (await operator.stores.accounts.get(account.accountId))!;
    expect(after.balance).toBe(before.balance);
    expect(after.holds ?? {}).toEqual(before.holds ?? {});
    const join = life.fn('Join');
    const logs = life.host.logs(join);
    expect(logs).toMatch(/"level":"WARN".*request failed: a dependency is throttling or timing out \(503\)/i);
    expect(logs).toContain('"DependencyUnavailable"');

    // Once DynamoDB keeps up, the same request starts the bot: the Idempotency-Key was freed, one hold is taken.
    const retried = await life.api('POST', '/api/bot/join', {
      body: life.joinBody('/hooks/throttled-table'),
      headers: { 'idempotency-key': 'throttled-table' },
    });
    expect(retried.statusCode, retried.body).toBe(201);
    const held = (await operator.stores.accounts.get(account.accountId))!;
    expect(held.holds?.[String(retried.json.bot_id)]).toBeDefined();
    expect((await life.api('POST', `/v1/bots/leave/${String(retried.json.bot_id)}`)).statusCode).toBe(202);
  }, 120_000);
});
