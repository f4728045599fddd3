// A bot whose voice fails goes on in text, through the local stack: a Daily bot (its own process, real Chromium, the
// daily-js stand-in) whose voice, Amazon Polly through the real adapter, is a closed port. Each line is tried twice,
// then the bot goes on in text only: its lines reach the transcript, and the session completes with the speech_fallback
// warning.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stubbedDailyBots } from '../browser/daily-stub-module';
import { startTestStack, type TestStack } from '../support/local-stack';
import { requires, skipReason } from '../support/requirements';
import { until } from '../support/until';

const skip = skipReason(requires.chromium());

describe.skipIf(skip)('a Daily bot whose voice fails', () => {
  let stack: TestStack;
  let key: string;
  let daily: Awaited<ReturnType<typeof stubbedDailyBots>>;
  beforeAll(async () => {
    daily = await stubbedDailyBots();
    stack = await startTestStack({ ...daily.env, SPEECH_RETRY_DELAY_MS: '100', TRANSCRIPT_FLUSH_MS: '200' });
    ({ apiKey: key } = await stack.account(50));
  });
  afterAll(async () => {
    await stack?.close();
    daily?.close();
  });

  it('greets in text, its lines in the transcript, and the session completes with the speech_fallback warning', async () => {
    const res = await stack.request('POST', '/api/bot/join', {
      key,
      body: {
        room_url: 'https://acme.daily.co/voiceless',
        process_insights: false,
        bot_config: { name: 'Iris', bot_prompt: 'Ask about their last project.' },
      },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const botId = res.body.bot_id as string;
    const status = async () => (await stack.request('GET', `/api/bot/${botId}/status`, { key })).body;
    // Ann is in the room from the start: the greeting goes out at once, as text.
    const greeted = await until(async () => {
      const s = await status();
      return s.transcript?.includes('Could you tell me about your last project?') && s;
    }, 30_000);
    expect(greeted.transcript).toBe(
      "Iris: Hello Ann, I'm Iris.\nIris: I have one question for you.\nIris: Could you tell me about your last project?",
    );
    await stack.request('POST', `/v1/bots/leave/${botId}`, { key });
    const done = await until(async () => {
      const s = await status();
      return s.status === 'completed' && s;
    }, 30_000);
    expect(done.warnings).toEqual([
      {
        code: 'speech_fallback',
        message: expect.stringMatching(
          /^The bot's voice failed twice on one line \(.*ECONNREFUSED.*\); it went on in text only/,
        ),
      },
    ]);
  }, 90_000);
});
