// The deliveries view (GET /api/bot/{bot_id}/deliveries): the events' own names and numbers, in the order a receiver
// gets them, whatever order the store keeps them in (by channel and event key, as text).
import { describe, expect, it } from 'vitest';
import type { Caller } from '../../core/accounts/authenticate';
import { getBotDeliveries } from '../../core/bots/get-status';
import type { ServiceDeps } from '../../core/deps';
import { deliveryEventKey } from '../../core/events/emit';
import type { Delivery } from '../../core/ports/deliveries-store';

const botId = '0190c2a4-7b1e-7c3d-9e8f-1a2b3c4d5e6f';
const caller = { accountId: 'acct_1' } as Caller;

const delivery = (over: Partial<Delivery> & Pick<Delivery, 'event'>): Delivery => ({
  botId,
  accountId: 'acct_1',
  channel: 'webhook',
  target: 'https://example.com/hooks',
  payload: '{}',
  messageId: `msg_${over.event}`,
  status: 'delivered',
  attempts: [],
  createdAt: '2026-03-02T10:00:00.000Z',
  ...over,
});
const tried = (at: string) => [{ at, status_code: 200, latency_ms: 12, error: null }];

function depsWith(list: Delivery[]): ServiceDeps {
  return {
    sessions: { get: async () => ({ botId, accountId: 'acct_1' }) },
    deliveries: { list: async () => list },
  } as unknown as ServiceDeps;
}

describe('the deliveries view', () => {
  it('names each event as its webhook does, with its seq, sorted by seq as a number, then by first attempt', async () => {
    // Twelve numbered events, stored as the table sorts their keys: as text, e-mail first.
    const numbered = Array.from({ length: 12 }, (_, i) => {
      const seq = i + 1;
      const name = seq === 1 ? 'bot.joining' : seq === 2 ? 'bot.in_call' : 'transcript.data';
      const key = name === 'transcript.data' ? `0.${seq * 3}` : undefined;
      return delivery({
        event: deliveryEventKey({ name, key }),
        seq,
        attempts: tried(`2026-03-02T10:00:${String(seq).padStart(2, '0')}.000Z`),
      });
    });
    const email = delivery({
      channel: 'email',
      event: 'session_complete',
      target: 'team@example.com',
      attempts: tried('2026-03-02T10:01:00.000Z'),
    });
    const complete = delivery({ event: 'session_complete', attempts: tried('2026-03-02T10:00:59.000Z') });
    const pending = delivery({
      event: 'bot_failed',
      status: 'pending',
      createdAt: '2026-03-02T10:00:58.000Z',
    });
    const stored = [email, ...numbered, complete, pending].sort((a, b) =>
      `${a.channel}#${a.event}`.localeCompare(`${b.channel}#${b.event}`),
    );

    const view = await getBotDeliveries(depsWith(stored), caller, botId);
    expect(view.deliveries.map((d) => [d.event, d.seq, d.channel])).toEqual([
      ['bot.joining', 1, 'webhook'],
      ['bot.in_call', 2, 'webhook'],
      ...Array.from({ length: 10 }, (_, i) => ['transcript.data', i + 3, 'webhook']),
      // Without a number: by first attempt, or creation when not tried yet.
      ['bot_failed', null, 'webhook'],
      ['session_complete', null, 'webhook'],
      ['session_complete', null, 'email'],
    ]);
    expect(view.deliveries.every((d) => !d.event.includes('#'))).toBe(true);
  });
});
