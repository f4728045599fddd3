// The recording endpoint's answers for a session without a file: 409 while it may still come, 404 once it cannot.
import { describe, expect, it } from 'vitest';
import type { Caller } from '../../core/accounts/authenticate';
import { failedAssemblyWindowMs, getRecording } from '../../core/bots/get-recording';
import type { BotSession } from '../../core/bots/session';
import type { ServiceDeps } from '../../core/deps';
import { ApiError } from '../../core/errors';

const botId = '5b1c6f4e-8a0d-4c55-9c1e-0f7a3b2d9e11';
const failedAt = Date.parse('2026-11-26T10:00:00Z');

function depsWith(session: Partial<BotSession>, nowMs: number): ServiceDeps {
  const stored = { botId, accountId: 'acct', recording: { audio: true }, ...session } as BotSession;
  return {
    sessions: { get: async (id: string) => (id === botId ? stored : null) },
    now: () => new Date(nowMs),
  } as unknown as ServiceDeps;
}

async function errorOf(session: Partial<BotSession>, nowMs: number): Promise<string> {
  try {
    await getRecording(depsWith(session, nowMs), { accountId: 'acct' } as Caller, botId);
  } catch (err) {
    if (err instanceof ApiError) return err.code;
    throw err;
  }
  throw new Error('expected an error');
}

describe('recording endpoint without a file', () => {
  const failed = {
    status: 'failed' as const,
    joinedAt: '2026-11-26T09:50:00Z',
    completedAt: new Date(failedAt).toISOString(),
  };

  it('a failed session that was in the room: 409 while its pieces may still be assembling', async () => {
    expect(await errorOf(failed, failedAt + 5_000)).toBe('recording_not_ready');
  });

  it('404 once the assembly window has passed (a session failed before failed sessions were assembled)', async () => {
    expect(await errorOf(failed, failedAt + failedAssemblyWindowMs + 1)).toBe('not_found');
  });

  it('404 at once when the assembly failed (a warning) or the bot never got into the room', async () => {
    const warned = {
      ...failed,
      warnings: [{ code: 'recording_failed', message: 'x' }],
    } as Partial<BotSession>;
    expect(await errorOf(warned, failedAt + 5_000)).toBe('not_found');
    expect(await errorOf({ ...failed, joinedAt: undefined }, failedAt + 5_000)).toBe('not_found');
  });
});
