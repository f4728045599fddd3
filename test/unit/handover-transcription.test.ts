// A bot stopped by its platform leaves its transcription running for its replacement only once that
// replacement was seen in the room; a failed handover (none in time) stops it, so no transcription runs on unowned.
import { describe, expect, it } from 'vitest';
import { runBot } from '../../bot-task/bot';
import type { BotSession } from '../../core/bots/session';
import { loadConfig } from '../../core/config';
import { createLogger } from '../../core/log';
import type { RoomProvider } from '../../core/ports/room-provider';
import { botConfigSchema } from '../../core/schemas/bot-config';
import { FakeRoom } from '../support/fake-room';
import { until } from '../support/until';

class LeavingRoom extends FakeRoom {
  leftWith: { keepTranscription?: boolean } | undefined;
  override async leave(options?: { keepTranscription?: boolean }) {
    this.leftWith = options ?? {};
    this.left = true;
  }
}

async function handOver(replacementJoins: boolean) {
  const now = new Date().toISOString();
  const session = {
    botId: 'bot-1',
    accountId: 'acc-1',
    status: 'running',
    provider: 'daily',
    roomUrl: 'https://example.daily.co/room',
    roomName: 'room',
    botConfig: botConfigSchema.parse({ name: 'Scribe' }),
    processInsights: false,
    holdCredits: 1,
    createdAt: now,
    startedAt: now,
    completedAt: null,
    joinedAt: now,
  } as BotSession;
  const stored: BotSession = { ...session };
  const sessions = {
    get: async () => ({ ...stored }),
    stopRequested: async () => false,
    writeStep: async () => true,
    updateReplacement: async () => true,
    addWarning: async () => true,
  };
  const room = new LeavingRoom([{ participantId: 'ann', name: 'Ann' }]);
  let joined = false;
  const provider = {
    join: async () => {
      joined = true;
      return room;
    },
  } as unknown as RoomProvider;
  let terminate = () => {};
  const terminated = new Promise<void>((r) => {
    terminate = r;
  });
  const config = loadConfig({ LOG_LEVEL: 'silent' }, { REPLACEMENT_HANDOFF_MS: 300, STOP_POLL_MS: 20 });
  const outcome = runBot({
    session,
    stores: {
      sessions,
      ledger: {},
      accounts: { get: async () => null },
      retention: { add: async () => {} },
      transcripts: { saveSegment: async () => {}, loadAttempts: async () => [] },
    } as never,
    config,
    provider,
    conversation: { greet: async function* () {}, reply: async function* () {} },
    outbox: {
      send: async (m: { kind?: string }) => {
        // The control plane records the replacement the bot asked for; it joins (or not).
        if (m.kind === 'replace_bot')
          stored.replacements = [{ at: now, reason: 'sigterm', ...(replacementJoins && { joinedAt: now }) }];
      },
    } as never,
    log: createLogger('silent'),
    terminated,
    attempt: 0,
  });
  // The platform stops the task once the bot is in the room.
  await until(() => joined, 5000);
  terminate();
  expect(await outcome).toEqual({ kind: 'handed_over' });
  return room.leftWith;
}

describe('the transcription a bot leaves behind when it hands over', () => {
  it('the replacement seen in the room: left running for it', async () => {
    expect(await handOver(true)).toEqual({ keepTranscription: true });
  });

  it('no replacement in the room by REPLACEMENT_HANDOFF_MS: stopped (nobody would own it)', async () => {
    expect(await handOver(false)).toEqual({ keepTranscription: false });
  });
});
