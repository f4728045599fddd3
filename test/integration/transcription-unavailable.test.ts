// A bot that cannot transcribe leaves, through npm start's stack, real HTTP and signed webhooks: a bot whose room
// transcription fails (fault injection through the local room: it fails from the start, or mid-meeting and stays
// failed) leaves once TRANSCRIPTION_RECOVERY_MS has passed without it running; the session ends failed with error_code
// transcription_unavailable and Daily's reason, nothing is charged, and bot_failed (with error_code) is delivered. One
// that comes back within the recovery time is no failure. The Daily path too: a bot process in Chromium whose daily-js
// stand-in refuses transcription.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stubbedDailyBots } from '../browser/daily-stub-module';
import { addParticipant, botInCall, followedBot } from '../support/local-meeting';
import { startTestStack, type TestStack } from '../support/local-stack';
import { requires, skipReason } from '../support/requirements';
import { elapse, until } from '../support/until';
import { webhookReceiver } from '../support/webhook-receiver';

const recoveryMs = 1500;
let stack: TestStack;
beforeAll(async () => {
  stack = await startTestStack({
    DELIVERY_BACKOFF_SCALE: '0.00001',
    TRANSCRIPT_FLUSH_MS: '200',
    TRANSCRIPTION_RECOVERY_MS: String(recoveryMs),
  });
});
afterAll(() => stack?.close());

const reason = 'Transcription failed: account has no transcription enabled';

/** A followed bot in a new local room (created with `room`): in the call, and Ada says a line on demand. */
async function botIn(name: string, room: Record<string, unknown> = {}) {
  const bot = await followedBot(stack, name, { roomOptions: room });
  const inRoom = () => until(async () => botInCall(stack, name));
  const say = (line: string) =>
    addParticipant(stack, name, { name: 'Ada', lines: [{ say: line, at_ms: 0 }] });
  return { ...bot, inRoom, say };
}

const failTranscription = (room: string, error: string | null) =>
  fetch(`${stack.baseUrl}/rooms/${room}/transcription`, { method: 'POST', body: JSON.stringify({ error }) });

describe('a bot whose room transcription is unavailable, through npm start’s stack', () => {
  it('never starts: the bot leaves; failed, error_code transcription_unavailable, Daily’s reason, nothing charged, bot_failed', async () => {
    const b = await botIn('no-transcription', { transcription_error: reason });
    try {
      await b.inRoom();
      const joined = Date.now();
      const done = await b.ended();
      expect(Date.now() - joined).toBeGreaterThanOrEqual(recoveryMs - 200);
      expect(done).toMatchObject({
        status: 'failed',
        error_code: 'transcription_unavailable',
        error: `the room's transcription is unavailable: ${reason}; not running again within 1.5 s`,
        exit_reason: null,
      });
      const events = await b.events('bot_failed');
      const failed = events.find((e) => e.name === 'bot_failed')!.body;
      expect(failed).toMatchObject({
        event_type: 'bot_failed',
        room_url: `${stack.baseUrl}/rooms/no-transcription`,
        error_code: 'transcription_unavailable',
        error_message: done.error,
        transcript_text: '',
      });
      expect(events.map((e) => e.name)).toContain('bot.failed');
      expect(events.map((e) => e.name)).not.toContain('session_complete');
      // In the room for about the recovery time, and charged nothing for it.
      expect((await b.settled())?.balance).toBe(10);
      expect(stack.rooms.rooms.get('no-transcription')?.participants).toEqual([]);
    } finally {
      await b.hook.close();
    }
  });

  it('fails mid-meeting and stays failed: the bot leaves with what it heard, not charged', async () => {
    const b = await botIn('transcription-breaks');
    try {
      await b.inRoom();
      await b.say('Before the outage.');
      await until(async () => (await b.status()).transcript?.includes('Ada: Before the outage.'));
      expect((await failTranscription('transcription-breaks', 'Deepgram connection lost')).status).toBe(200);
      const done = await b.ended();
      expect(done).toMatchObject({
        status: 'failed',
        error_code: 'transcription_unavailable',
        error:
          "the room's transcription is unavailable: Deepgram connection lost; not running again within 1.5 s",
      });
      const failed = (await b.events('bot_failed')).find((e) => e.name === 'bot_failed')!.body;
      expect(failed).toMatchObject({ error_code: 'transcription_unavailable' });
      expect(failed.transcript_text).toContain('Ada: Before the outage.');
      expect((await b.settled())?.balance).toBe(10);
    } finally {
      await b.hook.close();
    }
  });

  it('back within the recovery time: no failure; the session goes on and completes as usual', async () => {
    const b = await botIn('transcription-hiccup');
    try {
      await b.inRoom();
      // Down for a third of the recovery time, then back; still running a whole recovery time later.
      await failTranscription('transcription-hiccup', 'Deepgram hiccup');
      await elapse(recoveryMs / 3);
      await failTranscription('transcription-hiccup', null);
      await elapse(recoveryMs);
      expect((await b.status()).status).toBe('running');
      await b.say('After the hiccup.');
      await until(async () => (await b.status()).transcript?.includes('Ada: After the hiccup.'));
      await stack.request('POST', `/v1/bots/leave/${b.botId}`, { key: b.account.apiKey });
      expect(await b.ended()).toMatchObject({
        status: 'completed',
        exit_reason: 'force_leave',
        error_code: null,
      });
    } finally {
      await b.hook.close();
    }
  });
});

// The same failure on the Daily path: a bot process of the local stack in real Chromium, with the typed daily-js
// stand-in refusing transcription as Daily does for a token without transcription rights (a transcription-error).
const skip = skipReason(requires.chromium());

describe.skipIf(skip)('a Daily bot whose transcription is refused (stand-in)', () => {
  let daily: Awaited<ReturnType<typeof stubbedDailyBots>>;
  let dailyStack: TestStack;
  const refusal = 'Insufficient permissions to start transcription';
  beforeAll(async () => {
    daily = await stubbedDailyBots({ transcription: { refused: refusal } });
    dailyStack = await startTestStack({
      ...daily.env,
      DELIVERY_BACKOFF_SCALE: '0.00001',
      TRANSCRIPTION_RECOVERY_MS: '2000',
      TRANSCRIPTION_RETRY_MS: '500',
    });
  });
  afterAll(async () => {
    await dailyStack?.close();
    daily?.close();
  });

  it('leaves: failed with Daily’s reason and error_code transcription_unavailable, nothing charged, bot_failed', async () => {
    const account = await dailyStack.account(10);
    const hook = await webhookReceiver();
    try {
      const res = await dailyStack.request('POST', '/api/bot/join', {
        key: account.apiKey,
        body: { room_url: 'https://acme.daily.co/no-rights', webhook_callback_url: hook.url },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      const botId = res.body.bot_id as string;
      const done = await until(async () => {
        const s = (await dailyStack.request('GET', `/api/bot/${botId}/status`, { key: account.apiKey })).body;
        return s.status !== 'running' && s;
      }, 40_000);
      expect(done).toMatchObject({
        status: 'failed',
        error_code: 'transcription_unavailable',
        error: `the room's transcription is unavailable: Daily transcription error: ${refusal}; not running again within 2 s`,
      });
      // It was in the room (joined_at recorded), and still nothing is charged.
      expect((await dailyStack.deps.sessions.get(botId))?.joinedAt).toBeDefined();
      const settled = await until(async () => {
        const a = await dailyStack.deps.accounts.get(account.accountId);
        return Object.keys(a?.holds ?? {}).length === 0 && a;
      });
      expect(settled.balance).toBe(10);
      const failed = await until(() =>
        hook.delivered(account.webhookSecret).find((b) => b.event_type === 'bot_failed'),
      );
      expect(failed).toMatchObject({ error_code: 'transcription_unavailable', error_message: done.error });
    } finally {
      await hook.close();
    }
  }, 90_000);
});
