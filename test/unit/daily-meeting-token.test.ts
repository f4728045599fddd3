// The bot's Daily token: minted with the service's key (transcription admin) for a room of its own domain,
// otherwise the caller's token as given; a Daily REST failure falls back instead of failing the join.
import { describe, expect, it } from 'vitest';
import { botMeetingToken } from '../../bot-task/providers/daily/meeting-token';
import { createLogger } from '../../core/log';

const log = createLogger('silent');
const roomUrl = 'https://acme.daily.co/standup';
const now = new Date('2026-11-22T10:00:00Z');
const request = { roomUrl, botName: 'Interviewer', callerToken: 'caller-token', validForSeconds: 7200, now };

type Answers = Record<string, { status: number; body?: unknown } | Error>;

function fakeDaily(answers: Answers) {
  const calls: { url: string; method: string; auth: string | null; body?: unknown }[] = [];
  const fetchFake = (async (input: string, init: RequestInit = {}) => {
    const method = init.method ?? 'GET';
    calls.push({
      url: input,
      method,
      auth: new Headers(init.headers).get('authorization'),
      body: init.body ? JSON.parse(String(init.body)) : undefined,
    });
    const answer = answers[`${method} ${new URL(input).pathname}`] ?? { status: 404 };
    if (answer instanceof Error) throw answer;
    return new Response(answer.body === undefined ? null : JSON.stringify(answer.body), {
      status: answer.status,
    });
  }) as typeof fetch;
  return { fetch: fetchFake, calls };
}

const settings = (fetchFake: typeof fetch) => ({
  apiKey: 'daily-key',
  apiUrl: 'https://api.daily.test/v1',
  fetch: fetchFake,
});

describe('botMeetingToken', () => {
  it("mints a transcription-admin token for a room of the service's domain", async () => {
    const daily = fakeDaily({
      'GET /v1/rooms/standup': { status: 200, body: { name: 'standup', url: roomUrl } },
      'POST /v1/meeting-tokens': { status: 200, body: { token: 'minted' } },
    });
    expect(await botMeetingToken(settings(daily.fetch), request, log)).toBe('minted');
    expect(daily.calls.map((c) => [c.method, c.url, c.auth])).toEqual([
      ['GET', 'https://api.daily.test/v1/rooms/standup', 'Bearer daily-key'],
      ['POST', 'https://api.daily.test/v1/meeting-tokens', 'Bearer daily-key'],
    ]);
    expect(daily.calls[1]!.body).toEqual({
      properties: {
        room_name: 'standup',
        user_name: 'Interviewer',
        exp: now.getTime() / 1000 + 7200,
        permissions: { canAdmin: ['transcription'] },
      },
    });
  });

  it("uses the caller's token for a room of another domain: unknown to us, or same name elsewhere", async () => {
    const unknown = fakeDaily({});
    expect(await botMeetingToken(settings(unknown.fetch), request, log)).toBe('caller-token');
    const elsewhere = fakeDaily({
      'GET /v1/rooms/standup': {
        status: 200,
        body: { name: 'standup', url: 'https://ours.daily.co/standup' },
      },
    });
    expect(await botMeetingToken(settings(elsewhere.fetch), request, log)).toBe('caller-token');
    expect(elsewhere.calls.some((c) => c.method === 'POST')).toBe(false);
  });

  it("without the service's key, calls nothing and uses the caller's token (or none)", async () => {
    const daily = fakeDaily({});
    expect(
      await botMeetingToken({ apiUrl: 'https://api.daily.test/v1', fetch: daily.fetch }, request, log),
    ).toBe('caller-token');
    expect(
      await botMeetingToken({ apiUrl: 'x', fetch: daily.fetch }, { ...request, callerToken: undefined }, log),
    ).toBeUndefined();
    expect(daily.calls).toHaveLength(0);
  });

  it("falls back to the caller's token when Daily fails (network error, 5xx, no token)", async () => {
    const cases: Answers[] = [
      { 'GET /v1/rooms/standup': new Error('getaddrinfo ENOTFOUND') },
      { 'GET /v1/rooms/standup': { status: 503 } },
      {
        'GET /v1/rooms/standup': { status: 200, body: { url: roomUrl } },
        'POST /v1/meeting-tokens': { status: 500 },
      },
      {
        'GET /v1/rooms/standup': { status: 200, body: { url: roomUrl } },
        'POST /v1/meeting-tokens': { status: 200, body: {} },
      },
    ];
    for (const answers of cases) {
      expect(await botMeetingToken(settings(fakeDaily(answers).fetch), request, log)).toBe('caller-token');
    }
  });
});
