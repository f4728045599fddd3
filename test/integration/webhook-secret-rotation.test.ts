// A rotated-out webhook secret signs beside the new one for WEBHOOK_SECRET_OVERLAP_SECONDS (24 h), then stops.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { deliver } from '../../core/delivery/deliver';
import { webhookSignature } from '../../core/delivery/webhook-signer';
import { createLogger } from '../../core/log';
import { startTestStack, type TestStack } from '../support/local-stack';

let stack: TestStack;
const received: { headers: IncomingHttpHeaders; body: string }[] = [];
const server = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => {
    body += c;
  });
  req.on('end', () => {
    received.push({ headers: req.headers, body });
    res.end('ok');
  });
});
let target: string;

beforeAll(async () => {
  stack = await startTestStack();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  target = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await stack?.close();
});

const hour = 3600_000;
let n = 0;

/** Delivers one webhook as the delivery worker would at `at`; returns the secrets whose signatures it carried. */
async function signedWith(accountId: string, at: Date, overlapSeconds?: number): Promise<string[]> {
  const account = (await stack.deps.accounts.get(accountId))!;
  const event = `rotation-${++n}`;
  const botId = `44444444-4444-4444-8444-${String(n).padStart(12, '0')}`;
  await stack.deps.deliveries.create({
    botId,
    accountId,
    channel: 'webhook',
    event,
    target,
    payload: `{"n":${n}}`,
    messageId: `msg_rotation_${n}`,
    createdAt: at.toISOString(),
  });
  const config = {
    ...stack.config,
    ...(overlapSeconds !== undefined && { WEBHOOK_SECRET_OVERLAP_SECONDS: overlapSeconds }),
  };
  const outcome = await deliver(
    {
      stores: stack.deps,
      mailer: { send: async () => ({ messageId: 'x' }) },
      config,
      log: createLogger('silent'),
      now: () => at,
    },
    { bot_id: botId, channel: 'webhook', event },
  );
  expect(outcome).toEqual({ kind: 'done' });
  const got = received.at(-1)!;
  const signatures = String(got.headers['webhook-signature']).split(' ');
  const ts = Number(got.headers['webhook-timestamp']);
  const id = String(got.headers['webhook-id']);
  const candidates = [account.webhookSecret, account.previousWebhookSecret].filter(Boolean) as string[];
  expect(signatures).toHaveLength(
    candidates.filter((s) => signatures.includes(webhookSignature(s, id, ts, got.body))).length,
  );
  return candidates.filter((s) => signatures.includes(webhookSignature(s, id, ts, got.body)));
}

it('both secrets sign for 24 h after a rotation, then only the new one', async () => {
  const { accountId, webhookSecret: old } = await stack.account(1);
  const rotatedAt = new Date();
  const fresh = await stack.deps.accounts.rotateWebhookSecret(accountId, rotatedAt);
  const at = (h: number) => new Date(rotatedAt.getTime() + h * hour);

  expect(await signedWith(accountId, at(0))).toEqual([fresh, old]);
  expect(await signedWith(accountId, at(23.9))).toEqual([fresh, old]);
  expect(await signedWith(accountId, at(24))).toEqual([fresh]);
  expect(await signedWith(accountId, at(100))).toEqual([fresh]);
});

it('the overlap follows WEBHOOK_SECRET_OVERLAP_SECONDS', async () => {
  expect(stack.config.WEBHOOK_SECRET_OVERLAP_SECONDS).toBe(24 * 3600);
  const { accountId, webhookSecret: old } = await stack.account(1);
  const rotatedAt = new Date();
  const fresh = await stack.deps.accounts.rotateWebhookSecret(accountId, rotatedAt);
  expect(await signedWith(accountId, new Date(rotatedAt.getTime() + 0.5 * hour), 3600)).toEqual([fresh, old]);
  expect(await signedWith(accountId, new Date(rotatedAt.getTime() + 2 * hour), 3600)).toEqual([fresh]);
  expect(await signedWith(accountId, new Date(rotatedAt.getTime() + 2 * hour), 0)).toEqual([fresh]);
});

it('a warm delivery stage reuses the account it read for WEBHOOK_SECRET_CACHE_MS; a rotation reaches it after', async () => {
  expect(stack.config.WEBHOOK_SECRET_CACHE_MS).toBe(60_000);
  const { accountId, webhookSecret: old } = await stack.account(1);
  // A clock of its own, far from the other tests' times.
  const t0 = new Date(Date.now() + 1000 * hour);
  expect(await signedWith(accountId, t0)).toEqual([old]);
  const fresh = await stack.deps.accounts.rotateWebhookSecret(accountId, new Date(t0.getTime() + 1_000));
  // Within the cache's time the secret read before the rotation still signs, alone (receivers accept it for 24 h).
  expect(await signedWith(accountId, new Date(t0.getTime() + 30_000))).toEqual([old]);
  // Then the account is read again: the rotation's overlap, both secrets.
  expect(await signedWith(accountId, new Date(t0.getTime() + 61_000))).toEqual([fresh, old]);
});
