// The local results e-mail one click away: GET /mail lists what the local SES accepted, newest first;
// GET /mail/<id> shows a mail's HTML (in a sandboxed frame) and its text part; npm start prints the address.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestStack, type TestStack } from '../support/local-stack';
import { until } from '../support/until';

let stack: TestStack;
let key: string;
beforeAll(async () => {
  stack = await startTestStack({ EVERYONE_LEFT_TIMEOUT_MS: '100', RATE_LIMIT_PER_MINUTE: '100000' });
  ({ apiKey: key } = await stack.account(50));
});
afterAll(() => stack?.close());

async function meetingWithMail(room: string, email: string) {
  await fetch(`${stack.baseUrl}/rooms`, { method: 'POST', body: JSON.stringify({ name: room }) });
  const res = await stack.request('POST', '/api/bot/join', {
    key,
    body: {
      provider: 'local',
      room_url: `${stack.baseUrl}/rooms/${room}`,
      email,
      bot_config: { name: 'Scribe' },
    },
  });
  await until(async () => stack.rooms.rooms.get(room)?.participants.some((p) => p.kind === 'bot'));
  await fetch(`${stack.baseUrl}/rooms/${room}/participants`, {
    method: 'POST',
    body: JSON.stringify({
      name: 'Ada',
      lines: [{ say: `We ship <b>${room}</b> on Friday.`, at_ms: 50 }],
      leave_at_ms: 600,
    }),
  });
  return res.body.bot_id as string;
}

const listJson = async () =>
  (await (await fetch(`${stack.baseUrl}/mail`, { headers: { accept: 'application/json' } })).json()) as {
    mails: { id: string; to: string[]; subject: string; sent_at: string; url: string }[];
  };

describe('GET /mail', () => {
  it('lists the results e-mails newest first and shows one with its HTML and text parts', async () => {
    await meetingWithMail('mail-one', 'first@example.com');
    await until(async () => (await listJson()).mails.some((m) => m.to.includes('first@example.com')), 30_000);
    await meetingWithMail('mail-two', 'second@example.com');
    await until(
      async () => (await listJson()).mails.some((m) => m.to.includes('second@example.com')),
      30_000,
    );

    const { mails } = await listJson();
    expect(mails.map((m) => m.to[0])).toEqual(['second@example.com', 'first@example.com']);
    expect(mails[0]!.subject).toMatch(/mail-two/);
    // Sent just now (the store keeps seconds; read as milliseconds they were shown as January 1970).
    for (const m of mails) expect(Math.abs(Date.parse(m.sent_at) - Date.now())).toBeLessThan(120_000);

    const html = await (await fetch(`${stack.baseUrl}/mail`)).text();
    expect(html).toContain(`href="${mails[0]!.url}"`);
    expect(html.indexOf('second@example.com')).toBeLessThan(html.indexOf('first@example.com'));

    const one = await fetch(`${stack.baseUrl}${mails[1]!.url}`);
    expect(one.status).toBe(200);
    expect(one.headers.get('content-type')).toMatch(/text\/html/);
    const page = await one.text();
    // The mail's HTML is in a sandboxed frame, escaped into its srcdoc: none of it is markup of this page.
    // No allow-scripts: nothing of the mail runs.
    expect(page).toMatch(/<iframe sandbox="allow-same-origin" title="HTML part" [^>]*srcdoc="[^"]*&lt;html/);
    expect(page).not.toContain('<b>mail-one</b>');
    // The text part as sent, escaped.
    expect(page).toContain('We ship &lt;b&gt;mail-one&lt;/b&gt; on Friday.');
  });

  it('an unknown mail is a 404 in our error body; other methods and paths are not the viewer’s', async () => {
    const res = await fetch(`${stack.baseUrl}/mail/no-such-id`);
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ error: 'not_found' });
    expect((await fetch(`${stack.baseUrl}/mail`, { method: 'POST' })).status).toBe(404);
  });
});
