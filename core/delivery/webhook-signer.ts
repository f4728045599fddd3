// Standard Webhooks signatures (https://www.standardwebhooks.com): HMAC-SHA256 over "id.timestamp.body" with the
// account's whsec_ secret; during a secret rotation's overlap both signatures are sent (ARCHITECTURE.md).
import { createHmac, randomBytes } from 'node:crypto';

/**
 * The secrets a webhook is signed with now: the account's secret, and the one it replaced while the rotation's
 * overlap lasts. A previous secret without a rotation time (rotated before rotations were timed) no longer signs.
 */
export function signingSecrets(
  account: { webhookSecret: string; previousWebhookSecret?: string; webhookSecretRotatedAt?: string },
  now: Date,
  overlapSeconds: number,
): string[] {
  const { webhookSecret, previousWebhookSecret: previous, webhookSecretRotatedAt: rotatedAt } = account;
  const overlapping =
    previous !== undefined &&
    rotatedAt !== undefined &&
    now.getTime() - Date.parse(rotatedAt) < overlapSeconds * 1000;
  return overlapping ? [webhookSecret, previous] : [webhookSecret];
}

export function webhookSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

export function webhookHeaders(
  secrets: string[],
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => webhookSignature(s, id, timestampSeconds, body)).join(' '),
  };
}

export function newWebhookMessageId(): string {
  return `msg_${randomBytes(12).toString('base64url')}`;
}
