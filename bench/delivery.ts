// Delivery: webhook deliveries per second to a local receiver through the delivery queue and handler, and the time
// from a bot leaving the room to its session_complete webhook arriving (local engine for insights).

import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SendMessageBatchCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from '../core/adapters/aws-clients';
import { newWebhookMessageId } from '../core/delivery/webhook-signer';
import type { Table } from './run';
import { type BenchOptions, percentile, verdict, waitFor, withBenchStack } from './support';

const targets = { webhooks_per_s: 200, exit_to_webhook_p95_ms: 2000 };

export async function run(options: BenchOptions): Promise<Record<string, unknown>> {
  const webhooks = options.quick ? 100 : 1000;
  const sessions = options.quick ? 2 : 10;
  const arrivals = new Map<string, number>();
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => {
      body += c;
    });
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      if (!arrivals.has(id)) arrivals.set(id, Date.now());
      try {
        const parsed = JSON.parse(body) as { bot_id?: string };
        if (parsed.bot_id) arrivals.set(`bot:${parsed.bot_id}`, Date.now());
      } catch {}
      res.end('ok');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  try {
    return await withBenchStack('delivery', 10_000, async (s, { accountId, apiKey }) => {
      // 1. Throughput: many pending webhook deliveries queued at once.
      const botId = randomUUID();
      const sqs = sqsClient(s.config);
      for (let i = 0; i < webhooks; i++) {
        await s.deps.deliveries.create({
          botId,
          accountId: accountId,
          channel: 'webhook',
          event: `bench_${i}`,
          target: url,
          payload: JSON.stringify({ event: 'bench', n: i }),
          messageId: newWebhookMessageId(),
          createdAt: new Date().toISOString(),
        });
      }
      const t0 = Date.now();
      for (let i = 0; i < webhooks; i += 10) {
        await sqs.send(
          new SendMessageBatchCommand({
            QueueUrl: s.config.DELIVERY_QUEUE_URL,
            Entries: Array.from({ length: Math.min(10, webhooks - i) }, (_, k) => ({
              Id: String(k),
              MessageBody: JSON.stringify({ bot_id: botId, channel: 'webhook', event: `bench_${i + k}` }),
            })),
          }),
        );
      }
      await waitFor(() => arrivals.size >= webhooks, 120_000);
      const seconds = (Date.now() - t0) / 1000;
      sqs.destroy();

      // 2. Bot exit → webhook received, through the whole pipeline.
      const room = s.rooms.createRoom('bench-delivery', false);
      const exits: number[] = [];
      for (let i = 0; i < sessions; i++) {
        const name = `Bench bot ${i}`;
        const res = await fetch(`${s.baseUrl}/api/bot/join`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            provider: 'local',
            room_url: `${s.baseUrl}/rooms/bench-delivery`,
            webhook_callback_url: url,
            bot_config: { name },
          }),
        });
        const { bot_id } = (await res.json()) as { bot_id: string };
        await waitFor(() => room.participants.some((p) => p.name === name), 30_000);
        s.rooms.addScripted(room, {
          name: `Guest ${i}`,
          lines: [
            { say: 'Could you tell me what we are measuring today?', at_ms: 50 },
            { say: 'The time from the bot leaving to the webhook arriving.', at_ms: 150 },
          ],
          leave_at_ms: 400,
        });
        await waitFor(() => arrivals.has(`bot:${bot_id}`), 30_000);
        const left = room.log.find((e) => e.type === 'left' && e.name === name);
        exits.push(arrivals.get(`bot:${bot_id}`)! - Date.parse(left!.at));
      }
      const p95 = percentile(exits, 95);
      return {
        webhooks,
        webhooks_seconds: Math.round(seconds * 100) / 100,
        webhooks_per_s: Math.round(webhooks / seconds),
        webhooks_pass: webhooks / seconds >= targets.webhooks_per_s,
        exit_to_webhook_ms: { p50: percentile(exits, 50), p95, max: Math.max(...exits), n: exits.length },
        exit_to_webhook_pass: p95 <= targets.exit_to_webhook_p95_ms,
        targets,
        notes: [
          'webhooks: pending deliveries queued in batches of 10; the local poller (as the Lambda event source) drives the delivery handler: signing, SSRF-guarded POST, attempt recorded.',
          'exit → webhook: the bot leaves when its guest does; measured from the room log’s "left" to the receiver getting session_complete (results queue, local insights, bot-events queue, delivery queue).',
        ],
      };
    });
  } finally {
    receiver.close();
  }
}

export function table(result: Record<string, unknown>, options: BenchOptions): Table {
  const r = result as {
    webhooks_per_s: number;
    webhooks_pass: boolean;
    exit_to_webhook_ms: { p50: number; p95: number; max: number };
    exit_to_webhook_pass: boolean;
  };
  return [
    ['figure', 'value', 'target'],
    ['webhook deliveries / s', String(r.webhooks_per_s), `≥ 200 ${verdict(r.webhooks_pass, options)}`],
    [
      'bot exit → webhook p50 / p95 / max (ms)',
      `${r.exit_to_webhook_ms.p50} / ${r.exit_to_webhook_ms.p95} / ${r.exit_to_webhook_ms.max}`,
      `p95 ≤ 2000 ${verdict(r.exit_to_webhook_pass, options)}`,
    ],
  ];
}
