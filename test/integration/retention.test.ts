// Retention on dynalite: a meeting's content is kept for its account's retention_days after it ended, then deleted
// by the sweep exactly as a customer's deletion (tombstone kept); 0 days deletes it once delivered. The admin CLI
// sets an account's retention and deletes a bot's data for an operator, with an audit line.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryAll } from '../../core/adapters/dynamodb/table';
import { completeSession, failSession } from '../../core/bots/finish-session';
import type { BotSession } from '../../core/bots/session';
import type { OutboxMessage } from '../../core/control/outbox';
import { sweepRetention } from '../../core/data/retention';
import { createLogger } from '../../core/log';
import type { Delivery } from '../../core/ports/deliveries-store';
import { type LocalStack, startLocalStack } from '../../local/stack';
import { runAdminCli, runAdminCliOn } from '../support/admin-cli';
import { botItems } from '../support/table-items';

const phrase = 'ultramarine-harpsichord';
const day = 24 * 3600 * 1000;

let dataDir: string;
let stack: LocalStack;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'retention-'));
  // A long sweep interval: the test runs each sweep itself, at the time it chooses.
  stack = await startLocalStack({
    port: 0,
    dataDir,
    env: { LOG_LEVEL: 'silent', KEY_CACHE_TTL_MS: '0', BOT_POOL_SIZE: '0', HEARTBEAT_MS: '3600000' },
  });
});
afterAll(async () => {
  await stack?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** An ended meeting with content in every store: a segment, results, a delivered webhook. */
async function endedMeeting(
  accountId: string,
  endedAt: Date,
  recording?: BotSession['recording'],
): Promise<string> {
  const botId = randomUUID();
  const at = endedAt.toISOString();
  const session: BotSession = {
    botId,
    accountId,
    status: 'completed',
    provider: 'local',
    roomUrl: 'http://127.0.0.1/rooms/r',
    roomName: 'r',
    botConfig: {} as BotSession['botConfig'],
    processInsights: true,
    holdCredits: 0,
    createdAt: new Date(endedAt.getTime() - 600_000).toISOString(),
    startedAt: new Date(endedAt.getTime() - 600_000).toISOString(),
    completedAt: at,
    leftAt: at,
    exitReason: 'participant_left',
    qaPairs: [{ question: `Tell me about ${phrase}?`, answer: `${phrase} was my project.` }],
    ...(recording && { recording }),
  } as BotSession;
  await stack.deps.sessions.create(session);
  // Its end listed it for the sweep (finish-session.ts); created ended here, so listed as that end would.
  await stack.deps.sessions.dueForRetention(session);
  await stack.deps.transcripts.saveSegment(botId, 1, [
    { speaker: 'Cal', participant_id: 'p1', text: `${phrase} was my project.`, started_at: at } as never,
  ]);
  await stack.deps.deliveries.create({
    botId,
    accountId,
    channel: 'webhook',
    event: 'session_complete',
    target: 'https://example.com/hook',
    payload: JSON.stringify({ transcript_text: phrase }),
    messageId: `msg_${botId}`,
    createdAt: at,
  });
  return botId;
}

const items = (botId: string) => botItems(stack.table, botId);

/** The bot's retention entries (their due times). */
async function retentionEntries(botId: string): Promise<string[]> {
  const entries = await queryAll(stack.table, {
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': 'RETENTION#DUE' },
    ConsistentRead: true,
  });
  return entries
    .map((i) => String(i.sk))
    .filter((sk) => sk.endsWith(`#${botId}`))
    .map((sk) => sk.slice(0, sk.lastIndexOf('#')));
}

/** A running session that got into the room, with a saved line. */
async function runningMeeting(accountId: string, createdAt: Date): Promise<BotSession> {
  const at = createdAt.toISOString();
  const session = {
    botId: randomUUID(),
    accountId,
    status: 'running',
    provider: 'local',
    roomUrl: 'http://127.0.0.1/rooms/r',
    roomName: 'r',
    botConfig: {} as BotSession['botConfig'],
    processInsights: true,
    holdCredits: 0,
    createdAt: at,
    startedAt: at,
    completedAt: null,
    joinedAt: at,
  } as BotSession;
  await stack.deps.sessions.create(session);
  await stack.deps.transcripts.saveSegment(session.botId, 1, [
    { speaker: 'Cal', participant_id: 'p1', text: `${phrase} again.`, started_at: at } as never,
  ]);
  return session;
}

function sweepAt(now: Date, sent: OutboxMessage[] = []) {
  return sweepRetention({
    stores: stack.deps,
    config: stack.config,
    recordings: stack.deps.recordings(),
    outbox: { send: async (m) => void sent.push(m) },
    log: createLogger('silent'),
    now: () => now,
  });
}

describe('retention', () => {
  it('keeps content for retention_days after the meeting, then deletes it and keeps the tombstone', async () => {
    const { account } = await stack.deps.accounts.create('Default retention');
    const ended = new Date();
    const botId = await endedMeeting(account.accountId, ended);
    expect(stack.config.RETENTION_DAYS).toBe(30);

    // Day 29: kept (its look moves to later).
    expect((await sweepAt(new Date(ended.getTime() + 29 * day))).deleted).not.toContain(botId);
    expect(JSON.stringify(await items(botId))).toContain(phrase);

    // The clock moves past 30 days: gone, tombstone kept, bot.data_deleted (retention) sent.
    const sent: OutboxMessage[] = [];
    const later = new Date(ended.getTime() + 30 * day + 60_000);
    expect((await sweepAt(later, sent)).deleted).toContain(botId);
    const left = await items(botId);
    expect(JSON.stringify(left)).not.toContain(phrase);
    expect(left.some((i) => String(i.sk).startsWith('SEGMENT#'))).toBe(false);
    const tomb = await stack.deps.sessions.get(botId);
    expect(tomb).toMatchObject({
      botId,
      status: 'completed',
      exitReason: 'participant_left',
      dataDeletedAt: later.toISOString(),
    });
    expect(tomb?.qaPairs).toBeUndefined();
    expect(await stack.deps.deliveries.get(botId, 'webhook', 'session_complete')).toMatchObject({
      payload: '',
      messageId: `msg_${botId}`,
      contentDeletedAt: later.toISOString(),
    });
    expect(sent).toEqual([
      expect.objectContaining({ kind: 'bot_event', event: 'bot.data_deleted', detail: 'retention' }),
    ]);
    // Its entry is gone: the next sweep does nothing more with it.
    expect((await sweepAt(new Date(later.getTime() + day))).deleted).not.toContain(botId);
  });

  it('0 days deletes once delivered, never while a delivery is pending; a shorter retention applies within a day', async () => {
    const { account } = await stack.deps.accounts.create('Zero retention');
    const ended = new Date();
    const botId = await endedMeeting(account.accountId, ended);
    const kept = await endedMeeting(account.accountId, ended);
    // Both looked at once with the 30-day default: moved a day on.
    await sweepAt(new Date(ended.getTime() + 1000));

    const cli = await runAdminCliOn(dataDir, [
      'accounts',
      'set-retention',
      '--account',
      account.accountId,
      '--days',
      '0',
      '--json',
    ]);
    expect(cli.code, cli.stderr).toBe(0);
    expect(JSON.parse(cli.stdout)).toMatchObject({ retention_days: 0, effective_retention_days: 0 });
    const bad = await runAdminCliOn(dataDir, [
      'accounts',
      'set-retention',
      '--account',
      account.accountId,
      '--days',
      '4000',
    ]);
    expect(bad.code).toBe(2);

    const nextDay = new Date(ended.getTime() + day + 1000);
    // Still pending: not deleted before the customer had it.
    expect((await sweepAt(nextDay)).deleted).toEqual([]);
    expect(JSON.stringify(await items(botId))).toContain(phrase);
    for (const id of [botId, kept]) {
      const d = (await stack.deps.deliveries.claim(
        id,
        'webhook',
        'session_complete',
        Date.now() + 60_000,
        Date.now(),
      )) as Delivery;
      await stack.deps.deliveries.recordAttempt(
        d,
        { at: nextDay.toISOString(), status_code: 200, latency_ms: 5, error: null },
        { status: 'delivered' },
      );
    }
    const swept = await sweepAt(new Date(nextDay.getTime() + 120_000));
    expect(swept.deleted.sort()).toEqual([botId, kept].sort());
    expect(JSON.stringify(await items(botId))).not.toContain(phrase);
  });
});

describe('retention entries: written by the end, not the join', () => {
  const endDeps = () => ({ ...stack.deps, config: stack.config });

  it('a running session has none; its completion lists it once, before the final write, and the sweep deletes it', async () => {
    const { account } = await stack.deps.accounts.create('Listed at the end');
    const created = new Date(Date.now() - 600_000);
    const session = await runningMeeting(account.accountId, created);
    expect(await retentionEntries(session.botId)).toEqual([]);

    // The completion's final write fails once: the entry is there already, the session still runs.
    const sessions = stack.deps.sessions;
    const failing = Object.create(sessions) as typeof sessions;
    failing.updateRunning = async () => {
      throw new Error('ProvisionedThroughputExceededException');
    };
    const ended = new Date();
    const completion = { exitReason: 'participant_left' as const, endedAt: ended.toISOString() };
    await expect(
      completeSession({ ...endDeps(), sessions: failing }, session.botId, completion, ended),
    ).rejects.toThrow('Provisioned');
    expect(await retentionEntries(session.botId)).toEqual([created.toISOString()]);
    // A sweep meanwhile keeps the entry (looked at again later), never drops it while the session runs.
    expect((await sweepAt(new Date(ended.getTime() + 1000))).deleted).not.toContain(session.botId);
    expect(await retentionEntries(session.botId)).toHaveLength(1);

    // The retry completes it and writes the same entry again (keyed by the creation): no second one is left.
    expect(await completeSession(endDeps(), session.botId, completion, ended)).toBe(true);
    expect(await completeSession(endDeps(), session.botId, completion, ended)).toBe(false);
    const entries = await retentionEntries(session.botId);
    expect(entries).toContain(created.toISOString());

    const later = new Date(ended.getTime() + 31 * day);
    expect((await sweepAt(later)).deleted).toContain(session.botId);
    expect(JSON.stringify(await items(session.botId))).not.toContain(phrase);
    expect(await sweepAt(new Date(later.getTime() + 1000))).toEqual({ deleted: [], failed: [] });
    expect(await retentionEntries(session.botId)).toEqual([]);
  });

  it('a failed session is listed by its failure', async () => {
    const { account } = await stack.deps.accounts.create('Failed, listed');
    const created = new Date(Date.now() - 600_000);
    const session = await runningMeeting(account.accountId, created);
    expect(
      await failSession(endDeps(), session.botId, { error: 'lost for good', chargeUsage: true }, new Date()),
    ).toBe(true);
    expect(await retentionEntries(session.botId)).toEqual([created.toISOString()]);
    expect((await sweepAt(new Date(Date.now() + 31 * day))).deleted).toContain(session.botId);
  });
});

describe('admin CLI: data delete', () => {
  it("deletes an ended bot's content for an operator, with an audit line, and refuses an unknown bot", async () => {
    const { account } = await stack.deps.accounts.create('Operator request');
    const botId = await endedMeeting(account.accountId, new Date(), { audio: true });
    // The recording's objects, where the stack keeps them: two pieces and the assembled file.
    const recordings = stack.deps.recordings();
    const audio = new TextEncoder().encode(phrase);
    await recordings.putPiece(botId, { attempt: 0, seq: 0 }, Date.now(), audio);
    await recordings.putPiece(botId, { attempt: 0, seq: 1 }, Date.now(), audio);
    await recordings.putFile(botId, audio, {
      contentType: 'audio/webm',
      sizeBytes: audio.length,
      durationSeconds: 1,
    });
    expect(await recordings.listPieces(botId)).toHaveLength(2);
    const run = await runAdminCliOn(dataDir, ['data', 'delete', '--bot', botId, '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      bot_id: botId,
      status: 'data_deleted',
      account_id: account.accountId,
      event_error: null,
    });
    const audit = run.stderr
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l))
      .find((l) => l.audit === 'data_delete');
    expect(audit).toMatchObject({
      bot_id: botId,
      account_id: account.accountId,
      operator: expect.any(String),
    });
    expect(JSON.stringify(await items(botId))).not.toContain(phrase);
    expect((await stack.deps.sessions.get(botId))?.dataDeletedAt).toEqual(expect.any(String));
    // The same set as the API's deletion: the recording's pieces and file too.
    expect(await recordings.listPieces(botId)).toEqual([]);
    expect(await recordings.describeFile(botId)).toBeUndefined();
    expect(listFiles(join(dataDir, 'recordings')).filter((f) => f.includes(botId))).toEqual([]);

    const unknown = await runAdminCliOn(dataDir, ['data', 'delete', '--bot', randomUUID()]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('not found');
  });

  it('refuses, deleting nothing, a recorded bot when it cannot reach the recording store', async () => {
    const { account } = await stack.deps.accounts.create('Operator without the bucket');
    const botId = await endedMeeting(account.accountId, new Date(), { audio: true });
    const recordings = stack.deps.recordings();
    await recordings.putPiece(botId, { attempt: 0, seq: 0 }, Date.now(), new TextEncoder().encode(phrase));
    // The table by its endpoint (as with --aws), with neither RECORDINGS_BUCKET nor RECORDINGS_DIR set.
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      DYNAMODB_ENDPOINT: stack.config.DYNAMODB_ENDPOINT,
      TABLE_NAME: stack.config.TABLE_NAME,
    };
    delete env.RECORDINGS_BUCKET;
    delete env.RECORDINGS_DIR;
    const run = await runAdminCli(['data', 'delete', '--bot', botId], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('RECORDINGS_BUCKET');
    expect((await stack.deps.sessions.get(botId))?.dataDeletedAt).toBeUndefined();
    expect(JSON.stringify(await items(botId))).toContain(phrase);
    expect(await recordings.listPieces(botId)).toHaveLength(1);
  });
});

/** Every file under `dir` (none when it does not exist). */
function listFiles(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => join(e.parentPath, e.name));
  } catch {
    return [];
  }
}
