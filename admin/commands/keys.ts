// `keys create|list|revoke`: an account's API keys.
import type { Stores } from '../../core/deps';
import { type Command, lines, NotFoundError, onAccount, required } from './command';

export const keysCommands: Record<string, Command> = {
  'keys create': {
    args: '--account ID',
    about: 'Issue another API key (shown once)',
    prepare: (flags) =>
      onAccount(flags, async ({ accountId }, { stores: { accounts } }) => {
        const { apiKey, keyId } = await accounts.createKey(accountId);
        return {
          json: { account_id: accountId, api_key: apiKey, key_id: keyId },
          text: lines(
            `Created key ${keyId} for ${accountId}.`,
            `  API key: ${apiKey}`,
            'The API key is shown only this once: store it now.',
          ),
        };
      }),
  },

  'keys list': {
    args: '--account ID',
    about: "List the account's API keys",
    prepare: (flags) =>
      onAccount(flags, async ({ accountId }, { stores: { accounts } }) => {
        const apiKeys = await keysByAge(accounts, accountId);
        return {
          json: { account_id: accountId, keys: apiKeys.map(keyJson) },
          text: lines(
            `API keys of ${accountId} (${apiKeys.length}):`,
            ...apiKeys.map((k) => `  ${keyLine(k)}`),
          ),
        };
      }),
  },

  'keys revoke': {
    args: '--account ID --key KEY_ID',
    about: 'Revoke an API key',
    prepare(flags) {
      const keyId = required(flags, 'key');
      return onAccount(flags, async ({ accountId }, { stores: { accounts } }) => {
        const existing = (await accounts.listKeys(accountId)).find((k) => k.keyId === keyId);
        if (!existing) throw new NotFoundError(`key ${keyId} not found on account ${accountId}`);
        const now = new Date();
        await accounts.revokeKey(accountId, keyId, now);
        // Revoking twice keeps the first time (the store writes it only if absent).
        const revokedAt = existing.revokedAt ?? now.toISOString();
        return {
          json: { account_id: accountId, key_id: keyId, revoked_at: revokedAt },
          text: `Key ${keyId} of ${accountId} is revoked (since ${revokedAt}).\n`,
        };
      });
    },
  },
};

/** Oldest first: the store lists keys in key-id order, which is random. */
export async function keysByAge(accounts: Stores['accounts'], accountId: string) {
  const list = await accounts.listKeys(accountId);
  return list.sort((a, b) => a.createdAt.localeCompare(b.createdAt));
}

export function keyJson(k: { keyId: string; createdAt: string; revokedAt?: string }) {
  return { key_id: k.keyId, created_at: k.createdAt, revoked_at: k.revokedAt ?? null };
}

export function keyLine(k: { keyId: string; createdAt: string; revokedAt?: string }): string {
  return `${k.keyId}  created ${k.createdAt}  ${k.revokedAt ? `revoked ${k.revokedAt}` : 'active'}`;
}
