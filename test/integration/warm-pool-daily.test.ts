// A pooled bot warmed for Daily (BOT_POOL_PROVIDER=daily) through the local stack: real bot processes, real Chromium,
// the daily-js stand-in served as DAILY_JS_MODULE_PATH. It waits with its browser launched and the page
// loaded, and a Daily join is in the room as soon as it is claimed; a session of the other provider still gets a bot.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BotSession } from '../../core/bots/session';
import { stubbedDailyBots } from '../browser/daily-stub-module';
import { startTestStack, type TestStack } from '../support/local-stack';
import { requires, skipReason } from '../support/requirements';
import { until } from '../support/until';

const skip = skipReason(requires.chromium());

describe.skipIf(skip)('warm pool (Daily provider in Chromium)', () => {
  let stack: TestStack;
  let key: string;
  let daily: Awaited<ReturnType<typeof stubbedDailyBots>>;
  beforeAll(async () => {
    daily = await stubbedDailyBots();
    stack = await startTestStack({
      ...daily.env,
      BOT_POOL_SIZE: '1',
      BOT_POOL_PROVIDER: 'daily',
    });
    ({ apiKey: key } = await stack.account(100));
  });
  afterAll(async () => {
    await stack?.close();
    daily?.close();
  });

  /** The idle pooled bot once it has warmed (Chromium launched, daily-js loaded). */
  const warmBot = () => until(() => stack.runner.pool.find((b) => !b.botId && b.ready), 20_000);
  const session = async (botId: string) => (await stack.deps.sessions.get(botId)) as BotSession;

  async function joinAndLeave(body: Record<string, unknown>): Promise<BotSession> {
    const res = await stack.request('POST', '/api/bot/join', { key, body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const botId = res.body.bot_id as string;
    const joined = await until(async () => {
      const s = await session(botId);
      return s.joinedAt ? s : undefined;
    }, 20_000);
    await stack.request('POST', `/v1/bots/leave/${botId}`, { key });
    const ended = await until(async () => {
      const s = await session(botId);
      return s.status !== 'running' && s;
    }, 20_000);
    expect(ended).toMatchObject({ status: 'completed', exitReason: 'force_leave' });
    return joined;
  }

  it('a Daily join is taken by the warm pooled bot, which joins with the browser it launched while idle', async () => {
    const pooled = await warmBot();
    const joined = await joinAndLeave({
      room_url: 'https://acme.daily.co/standup',
      bot_config: { name: 'Iris' },
    });
    expect(joined).toMatchObject({ provider: 'daily', startPath: 'pool', claimedBy: pooled.poolBotId });
    // Chromium's launch and daily-js's load happened before the join: from claim to in the room is the call's join.
    expect(Date.parse(joined.joinedAt!) - Date.parse(joined.claimedAt!)).toBeLessThan(2000);
  });

  it('a local-room join claimed by a Daily-warmed bot is served with a fresh local provider', async () => {
    const pooled = await warmBot();
    await stack.request('POST', '/rooms', { body: { name: 'other', knocking: false } });
    await stack.request('POST', '/rooms/other/participants', {
      body: { name: 'Casey', answers: [], leave_at_ms: 60_000 },
    });
    const joined = await joinAndLeave({
      provider: 'local',
      room_url: `${stack.baseUrl}/rooms/other`,
      bot_config: { name: 'Iris' },
    });
    expect(joined).toMatchObject({ provider: 'local', startPath: 'pool', claimedBy: pooled.poolBotId });
  });
});
