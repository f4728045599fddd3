// The event registry is the one definition of every webhook event: docs/webhooks.md's table, the OpenAPI document's
// `webhooks` and the start request's `webhook_events` validation all come from it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { alwaysSentEvents, eventNames, eventRegistry, subscribes } from '../../core/events/registry';
import { buildOpenApiDocument } from '../../core/openapi';
import { startRequestSchema } from '../../core/schemas/start-request';

const rows = (table: string) =>
  table
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|\s*-/.test(l))
    .map((l) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim()),
    );

/** The event table docs/webhooks.md must hold, one row per event of the registry. */
function eventTableMarkdown(): string {
  const rows = eventNames.map((n) => {
    const d = eventRegistry[n] as { alwaysSent: boolean; statusCode?: string; description: string };
    return `| \`${n}\` | ${d.alwaysSent ? 'yes' : 'no'} | ${d.statusCode ? `\`${d.statusCode}\`` : '—'} | ${d.description} |`;
  });
  return ['| event | always sent | status change | when |', '| --- | --- | --- | --- |', ...rows].join('\n');
}

describe('event registry', () => {
  it('the webhooks guide’s event table is the registry’s, row for row', () => {
    const guide = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');
    const section = /<!-- events:start -->([\s\S]*?)<!-- events:end -->/.exec(guide)?.[1];
    expect(section, 'docs/webhooks.md has the events table between its markers').toBeTruthy();
    expect(rows(section!)).toEqual(rows(eventTableMarkdown()));
  });

  it('the OpenAPI document has one webhook per event, with the registry’s schema', () => {
    const doc = buildOpenApiDocument() as unknown as {
      webhooks: Record<
        string,
        { post: { requestBody: { content: { 'application/json': { schema: { $ref: string } } } } } }
      >;
      components: { schemas: Record<string, unknown> };
    };
    expect(Object.keys(doc.webhooks).sort()).toEqual([...eventNames].sort());
    for (const name of eventNames) {
      const ref = doc.webhooks[name]!.post.requestBody.content['application/json'].schema.$ref;
      expect(doc.components.schemas[ref.split('/').at(-1)!], name).toBeTruthy();
    }
    const committed = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
    expect(Object.keys(committed.webhooks).sort()).toEqual([...eventNames].sort());
  });

  it('the results and failures always go to the webhook; webhook_events adds the live events', () => {
    expect([...alwaysSentEvents].sort()).toEqual(['bot_failed', 'bot_join_failed', 'session_complete']);
    expect(subscribes(undefined, 'session_complete')).toBe(true);
    expect(subscribes(undefined, 'bot.in_call')).toBe(false);
    expect(subscribes(['bot.in_call'], 'bot.in_call')).toBe(true);
    expect(subscribes(['bot.in_call'], 'bot.left')).toBe(false);
    // A list that leaves the results out still gets them: it asked for live events, not to lose the results.
    for (const name of alwaysSentEvents) {
      expect(subscribes(['bot.in_call'], name), name).toBe(true);
      expect(subscribes([], name), name).toBe(true);
    }
  });

  it('webhook_events: known names only, each once; an unknown one is named with the allowed values', () => {
    const schema = startRequestSchema({ allowInsecureWebhooks: false });
    const base = {
      room_url: 'https://acme.daily.co/standup',
      webhook_callback_url: 'https://hooks.example.com/x',
    };
    expect(
      schema.parse({ ...base, webhook_events: ['bot.in_call', 'transcript.data'] }).webhook_events,
    ).toEqual(['bot.in_call', 'transcript.data']);
    const unknown = schema.safeParse({ ...base, webhook_events: ['bot.in_call', 'bot.dancing'] });
    expect(unknown.success).toBe(false);
    const message = JSON.stringify(unknown.error?.issues);
    expect(message).toContain('webhook_events');
    for (const name of eventNames) expect(message).toContain(name);
    expect(schema.safeParse({ ...base, webhook_events: ['bot.left', 'bot.left'] }).success).toBe(false);
    expect(schema.safeParse({ ...base, webhook_events: 'bot.left' }).success).toBe(false);
  });

  it('every event of ours has the envelope: event, bot_id, timestamp with offset, seq ≥ 1, data', () => {
    const body = {
      event: 'bot.left',
      bot_id: '11111111-2222-4333-8444-555555555555',
      timestamp: '2026-11-22T10:00:00.000+00:00',
      seq: 3,
      data: { exit_reason: 'participant_left' },
    };
    expect(eventRegistry['bot.left'].schema.parse(body)).toEqual(body);
    expect(eventRegistry['bot.left'].schema.safeParse({ ...body, seq: 0 }).success).toBe(false);
    expect(
      eventRegistry['bot.left'].schema.safeParse({ ...body, data: { exit_reason: 'bored' } }).success,
    ).toBe(false);
  });
});
