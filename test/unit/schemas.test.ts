import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../core/config';
import {
  dailyHostAllowed,
  roomNameOf,
  startRequestSchema,
  webhookUrlProblem,
} from '../../core/schemas/start-request';
import { describeIssues } from '../../core/schemas/validate';

const strict = { allowInsecureWebhooks: false };
const local = { allowInsecureWebhooks: true };

describe('room URLs', () => {
  it.each([
    ['daily', 'https://acme.daily.co/standup', 'standup'],
    ['daily', 'https://acme.daily.co/standup/', 'standup'],
    ['daily', 'https://video.example.com/Room_1-a', 'Room_1-a'],
    ['local', 'http://localhost:3000/rooms/demo', 'demo'],
    ['local', 'https://dev.example/rooms/x', 'x'],
  ] as const)('%s %s → %s', (provider, url, name) => {
    expect(roomNameOf(provider, url)).toBe(name);
  });

  it.each([
    ['daily', 'http://acme.daily.co/standup'],
    ['daily', 'https://acme.daily.co/'],
    ['daily', 'https://acme.daily.co/a/b'],
    ['daily', 'https://user:pw@acme.daily.co/a'],
    ['daily', 'https://acme.daily.co/a#frag'],
    ['daily', 'javascript:alert(1)'],
    ['local', 'http://localhost:3000/demo'],
    ['local', 'file:///rooms/demo'],
    ['daily', 'not a url'],
  ] as const)('%s %s is refused', (provider, url) => {
    expect(roomNameOf(provider, url)).toBeNull();
  });
});

describe('Daily room domains (DAILY_ROOM_DOMAINS)', () => {
  const domains = loadConfig({ DAILY_ROOM_DOMAINS: 'daily.co, *.Meet.Example.com' }).DAILY_ROOM_DOMAINS;

  it('parses a comma-separated list, lower-cased, a leading *. dropped; daily.co by default', () => {
    expect(domains).toEqual(['daily.co', 'meet.example.com']);
    expect(loadConfig({}).DAILY_ROOM_DOMAINS).toEqual(['daily.co']);
  });

  it.each(['https://acme.daily.co/standup', 'https://ACME.Daily.co/standup', 'https://meet.example.com/r'])(
    'accepts %s',
    (url) => expect(dailyHostAllowed(url, domains)).toBe(true),
  );

  it.each([
    'https://evil.example.com/standup',
    'https://notdaily.co/standup',
    'https://acme.daily.co.evil.com/standup',
    'https://example.com/r',
    'not a url',
  ])('refuses %s', (url) => expect(dailyHostAllowed(url, domains)).toBe(false));

  it('refuses a setting that is not a list of domains', () => {
    expect(() => loadConfig({ DAILY_ROOM_DOMAINS: ' , ' })).toThrow(/DAILY_ROOM_DOMAINS/);
    expect(() => loadConfig({ DAILY_ROOM_DOMAINS: 'https://daily.co/' })).toThrow(/DAILY_ROOM_DOMAINS/);
  });
});

describe('webhook URLs', () => {
  it('production accepts public https only', () => {
    expect(webhookUrlProblem('https://hooks.example.com/in', strict)).toBeNull();
    expect(webhookUrlProblem('https://93.184.216.34/in', strict)).toBeNull();
    for (const url of [
      'http://hooks.example.com/in',
      'https://localhost/in',
      'https://127.0.0.1/in',
      'https://10.1.2.3/in',
      'https://169.254.169.254/latest/meta-data',
      'https://192.168.1.1/',
      'https://[::1]/in',
      'https://[fd00::1]/in',
      'https://[::ffff:127.0.0.1]/in',
      'https://metadata.google.internal/',
      'https://user:pw@hooks.example.com/',
      'ftp://hooks.example.com/',
    ]) {
      expect(webhookUrlProblem(url, strict), url).not.toBeNull();
    }
  });

  it('local mode also accepts http and loopback', () => {
    expect(webhookUrlProblem('http://127.0.0.1:8080/hook', local)).toBeNull();
    expect(webhookUrlProblem('ftp://127.0.0.1/hook', local)).not.toBeNull();
  });
});

describe('start request', () => {
  it('fills every default', () => {
    const req = startRequestSchema(strict).parse({ room_url: 'https://a.daily.co/r' });
    expect(req).toEqual({
      provider: 'daily',
      room_url: 'https://a.daily.co/r',
      process_insights: true,
      // automatic_leave's defaults are the deployment's, filled in by the join (test/unit/automatic-leave.test.ts).
      bot_config: { name: 'Meeting Bot', video_mode: 'static', voice: 'Joanna' },
    });
  });

  it('names every offending field, including unknown ones', () => {
    const result = startRequestSchema(strict).safeParse({
      room_url: 'https://a.daily.co/r',
      webhook_callback_url: 'http://x.example/h',
      extra: 1,
      bot_config: { voice: 'Nope', other: true },
    });
    expect(result.success).toBe(false);
    const detail = describeIssues(result.error!);
    expect(detail).toContain('extra: unknown field');
    expect(detail).toContain('bot_config.other: unknown field');
    expect(detail).toContain('bot_config.voice');
  });

  it('refuses a http webhook in production mode and accepts it locally', () => {
    const body = { room_url: 'https://a.daily.co/r', webhook_callback_url: 'http://127.0.0.1/h' };
    expect(startRequestSchema(strict).safeParse(body).success).toBe(false);
    expect(startRequestSchema(local).safeParse(body).success).toBe(true);
  });

  it('refuses a http background image in production mode (the bot would not fetch it) and accepts it locally', () => {
    const body = {
      room_url: 'https://a.daily.co/r',
      bot_config: { background_image_url: 'http://img.example/a.png' },
    };
    const result = startRequestSchema(strict).safeParse(body);
    expect(describeIssues(result.error!)).toBe('bot_config.background_image_url: must be an https URL');
    expect(startRequestSchema(local).safeParse(body).success).toBe(true);
    const https = { ...body, bot_config: { background_image_url: 'https://img.example/a.png' } };
    expect(startRequestSchema(strict).safeParse(https).success).toBe(true);
  });

  it('refuses webhook_events without webhook_callback_url (the events would go nowhere)', () => {
    const events = { room_url: 'https://a.daily.co/r', webhook_events: ['bot.in_call'] };
    const result = startRequestSchema(strict).safeParse(events);
    expect(describeIssues(result.error!)).toBe(
      'webhook_events: needs webhook_callback_url: the events are sent there',
    );
    const withUrl = { ...events, webhook_callback_url: 'https://hooks.example.com/h' };
    expect(startRequestSchema(strict).safeParse(withUrl).success).toBe(true);
  });

  it('a join_at without a time zone offset is refused with a message that names the offset', () => {
    const body = { room_url: 'https://a.daily.co/r', join_at: '2030-05-04T10:00:00' };
    const detail = describeIssues(startRequestSchema(strict).safeParse(body).error!);
    expect(detail).toMatch(
      /^join_at: must be an RFC 3339 date-time with its time zone offset \(Z or ±hh:mm\)/,
    );
    expect(startRequestSchema(strict).safeParse({ ...body, join_at: '2030-05-04T10:00:00Z' }).success).toBe(
      true,
    );
  });
});
