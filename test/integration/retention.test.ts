// Retention on dynalite: a meeting's content is kept for its account's retention_days after it ended, then deleted
// by the sweep exactly as a customer's deletion (tombstone kept); 0 days deletes it once delivered. The index is the
// DynamoDB adapter's shards (and the old single partition, read until empty); the benchmark's scenario runs through it
// at a small size and gives what the in-memory index gives. The admin CLI sets an account's retention (re-dating a
// shortened one's meetings) and deletes a bot's data for an operator, with an audit line.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quickScenario, runRetentionSim } from '../../bench/retention-sim';
import { DynamoRetentionIndex, retentionShardCount } from '../../core/adapters/dynamodb/retention-index';
import { ensureTable, keys, queryAll } from '../../core/adapters/dynamodb/table';
import { completeSession, failSession } from '../../core/bots/finish-session';
import type { BotSession } from '../../core/bots/session';
import type { OutboxMessage } from '../../core/control/outbox';
import { deleteMeetingData } from '../../core/data/delete-meeting-data';
import { dueAt, listForRetention, sweepRetention } from '../../core/data/retention';
import { createLogger } from '../../core/log';
import type { Delivery } from '../../core/ports/deliveries-store';
import { retentionShardOf } from '../../core/ports/retention-index';
import { type LocalStack, startLocalStack } from '../../local/stack';
import { runAdminCli, runAdminCliOn } from '../support/admin-cli';
import { MemoryRetentionIndex } from '../support/memory-retention-index';
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
  await listForRetention({ stores: stack.deps, config: stack.config }, session, at);
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

/** The bot's retention entries (their due times): in its shard, or (`legacy`) in the old single partition. */
async function retentionEntries(botId: string, part: 'shard' | 'legacy' = 'shard'): Promise<string[]> {
  const pk =
    part === 'legacy'
      ? keys.legacyRetentionEntry('', botId).pk
      : keys.retentionEntry(retentionShardOf(botId, retentionShardCount), '', botId).pk;
  const entries = await queryAll(stack.table, {
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': pk },
    ConsistentRead: true,
  });
  return entries
    .map((i) => String(i.sk))
    .filter((sk) => sk.endsWith(`#${botId}`))
    .map((sk) => sk.slice(0, sk.lastIndexOf('#')));
}

/** An entry as an earlier version wrote it: one partition, due at the session's creation. */
async function legacyEntry(botId: string, due: string): Promise<void> {
  await stack.table.doc.send(
    new PutCommand({
      TableName: stack.table.tableName,
      Item: { ...keys.legacyRetentionEntry(due, botId), type: 'retention_due' },
    }),
  );
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
    deadline: new Date(now.getTime() + 30_000),
  });
}

describe('retention', () => {
  it('keeps content for retention_days after the meeting, then deletes it and keeps the tombstone', async () => {
    const { account } = await stack.deps.accounts.create('Default retention');
    const ended = new Date();
    const botId = await endedMeeting(account.accountId, ended);
    expect(stack.config.RETENTION_DAYS).toBe(30);

    // Listed once, at its end plus 30 days, in its shard.
    expect(await retentionEntries(botId)).toEqual([dueAt(ended.toISOString(), 30)]);
    // Day 29: not due, not looked at: the entry stays as it was.
    expect((await sweepAt(new Date(ended.getTime() + 29 * day))).deleted).not.toContain(botId);
    expect(JSON.stringify(await items(botId))).toContain(phrase);
    expect(await retentionEntries(botId)).toEqual([dueAt(ended.toISOString(), 30)]);

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

  it('0 days deletes once delivered, never while a delivery is pending; a shorter retention re-dates the kept meetings', async () => {
    const { account } = await stack.deps.accounts.create('Zero retention');
    const ended = new Date();
    const botId = await endedMeeting(account.accountId, ended);
    const kept = await endedMeeting(account.accountId, ended);
    expect(await retentionEntries(botId)).toEqual([dueAt(ended.toISOString(), 30)]);

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
    // The CLI re-dated both meetings to their end plus 0 days: due now, not in 30 days.
    expect(JSON.parse(cli.stdout)).toMatchObject({
      retention_days: 0,
      effective_retention_days: 0,
      meetings_redated: 2,
    });
    expect(await retentionEntries(botId)).toEqual([ended.toISOString()]);
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
    // Looked at again after as long as they had waited, an hour at most: deleted within the hour after delivery.
    expect((await sweepAt(new Date(nextDay.getTime() + 120_000))).deleted).toEqual([]);
    const swept = await sweepAt(new Date(nextDay.getTime() + 3600_000));
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
    failing.writeStep = async () => {
      throw new Error('ProvisionedThroughputExceededException');
    };
    const ended = new Date();
    const completion = { exitReason: 'participant_left' as const, endedAt: ended.toISOString() };
    await expect(
      completeSession({ ...endDeps(), sessions: failing }, session.botId, completion, ended),
    ).rejects.toThrow('Provisioned');
    // Due at the completion plus the account's retention (the deployment's 30 days).
    const due = dueAt(ended.toISOString(), 30);
    expect(await retentionEntries(session.botId)).toEqual([due]);
    // A sweep meanwhile does not look at it: it is not due.
    expect((await sweepAt(new Date(ended.getTime() + 1000))).deleted).not.toContain(session.botId);
    expect(await retentionEntries(session.botId)).toEqual([due]);

    // The retry completes it and writes the same entry again: no second one.
    expect(await completeSession(endDeps(), session.botId, completion, ended)).toBe(true);
    expect(await completeSession(endDeps(), session.botId, completion, ended)).toBe(false);
    expect(await retentionEntries(session.botId)).toEqual([due]);

    const later = new Date(ended.getTime() + 31 * day);
    expect((await sweepAt(later)).deleted).toContain(session.botId);
    expect(JSON.stringify(await items(session.botId))).not.toContain(phrase);
    expect(await sweepAt(new Date(later.getTime() + 1000))).toMatchObject({
      deleted: [],
      failed: [],
      looked: 0,
    });
    expect(await retentionEntries(session.botId)).toEqual([]);
  });

  it('a failed session is listed by its failure', async () => {
    const { account } = await stack.deps.accounts.create('Failed, listed');
    const created = new Date(Date.now() - 600_000);
    const session = await runningMeeting(account.accountId, created);
    const failed = new Date();
    expect(
      await failSession(endDeps(), session.botId, { error: 'lost for good', chargeUsage: true }, failed),
    ).toBe(true);
    expect(await retentionEntries(session.botId)).toEqual([dueAt(failed.toISOString(), 30)]);
    expect((await sweepAt(new Date(Date.now() + 31 * day))).deleted).toContain(session.botId);
  });
});

describe('retention: what the sweep meets at the due time', () => {
  it('an entry of the old single partition is moved into its shard at its due time, or deleted when past it', async () => {
    const { account } = await stack.deps.accounts.create('Listed by an earlier version');
    const now = new Date();
    // Both listed as the earlier version did (due at creation), none in the shards yet.
    const recent = await endedMeeting(account.accountId, new Date(now.getTime() - day));
    const old = await endedMeeting(account.accountId, new Date(now.getTime() - 31 * day));
    for (const botId of [recent, old]) {
      const session = (await stack.deps.sessions.get(botId))!;
      for (const due of await retentionEntries(botId))
        await stack.deps.retention.clear({ botId, due, part: retentionShardOf(botId, retentionShardCount) });
      await legacyEntry(botId, session.createdAt);
    }
    const swept = await sweepAt(now);
    expect(swept.deleted).toContain(old);
    expect(swept.deleted).not.toContain(recent);
    const recentSession = (await stack.deps.sessions.get(recent))!;
    expect(await retentionEntries(recent)).toEqual([dueAt(recentSession.completedAt!, 30)]);
    expect(await retentionEntries(recent, 'legacy')).toEqual([]);
    expect(await retentionEntries(old, 'legacy')).toEqual([]);
    expect(await retentionEntries(old)).toEqual([]);
  });

  it('a meeting its customer deleted first loses its entry at the due time, with nothing sent again', async () => {
    const { account } = await stack.deps.accounts.create('Deleted before due');
    const ended = new Date();
    const botId = await endedMeeting(account.accountId, ended);
    const session = (await stack.deps.sessions.get(botId))!;
    await deleteMeetingData(
      {
        stores: stack.deps,
        recordings: stack.deps.recordings(),
        outbox: { send: async () => {} },
        log: createLogger('silent'),
        now: () => new Date(),
      },
      session,
      'requested',
    );
    const sent: OutboxMessage[] = [];
    const swept = await sweepAt(new Date(ended.getTime() + 30 * day + 1000), sent);
    expect(swept.deleted).not.toContain(botId);
    expect(sent.filter((m) => 'bot_id' in m && m.bot_id === botId)).toEqual([]);
    expect(await retentionEntries(botId)).toEqual([]);
  });

  it('a session still running at its due time keeps its entry, looked at again ten minutes later', async () => {
    const { account } = await stack.deps.accounts.create('Running at due');
    await stack.deps.accounts.setRetentionDays(account.accountId, 0);
    const session = await runningMeeting(account.accountId, new Date(Date.now() - 600_000));
    // Its end listed it (0 days: due at once), then its final write failed: the session still runs.
    const ended = new Date();
    await listForRetention({ stores: stack.deps, config: stack.config }, session, ended.toISOString());
    const at = new Date(ended.getTime() + 1000);
    expect((await sweepAt(at)).deleted).not.toContain(session.botId);
    expect(await retentionEntries(session.botId)).toEqual([new Date(at.getTime() + 600_000).toISOString()]);
    expect(JSON.stringify(await items(session.botId))).toContain(phrase);
  });
});

describe('retention at size, through the DynamoDB index', () => {
  it('the benchmark’s scenario, small, gives on dynalite what it gives on the in-memory index', async () => {
    // A table of its own, so the scenario's sweeps meet none of the other tests' entries.
    const table = { doc: stack.table.doc, tableName: `retention-sim-${randomUUID().slice(0, 8)}` };
    await ensureTable(table);
    // The index's calls ask DynamoDB (dynalite) what each consumed, to check the simulation's unit counts.
    const consumed = { read: 0, write: 0 };
    const metered = {
      send: async (command: { input: Record<string, unknown> }) => {
        command.input.ReturnConsumedCapacity = 'TOTAL';
        const out = await (table.doc.send as (c: unknown) => Promise<Record<string, unknown>>)(command);
        const units = (out.ConsumedCapacity as { CapacityUnits?: number } | undefined)?.CapacityUnits ?? 0;
        consumed[command instanceof QueryCommand ? 'read' : 'write'] += units;
        return out;
      },
    } as unknown as typeof table.doc;
    const dynamo = Object.assign(new DynamoRetentionIndex({ ...table, doc: metered }), {
      addLegacy: async (botId: string, due: string) => {
        await table.doc.send(
          new PutCommand({
            TableName: table.tableName,
            Item: { ...keys.legacyRetentionEntry(due, botId), type: 'retention_due' },
          }),
        );
      },
    });
    const scenario = {
      ...quickScenario,
      meetings: 120,
      accounts: 6,
      endsOverDays: 2,
      retentionDays: [
        [0, 1],
        [1, 2],
        [2, 2],
      ] as [number, number][],
      retentionChanges: 2,
      burst: 60,
      legacyShare: 0.05,
      deletedEarlyShare: 0.03,
    };
    // Every 20 minutes instead of every minute: the same code, fewer Queries for dynalite to answer.
    const options = { sweepEveryMs: 20 * 60_000 };
    const onDynamo = await runRetentionSim(scenario, dynamo, options);
    const inMemory = await runRetentionSim(scenario, new MemoryRetentionIndex(retentionShardCount), options);
    expect(onDynamo).toEqual(inMemory);
    // What DynamoDB's rules (dynalite's ConsumedCapacity) make of the same calls is what the simulation counted, but
    // for the 0.5 unit DynamoDB charges a Query that finds nothing and dynalite does not.
    const { read, write, empty_queries } = onDynamo.index_units;
    expect(consumed).toEqual({ read: read - 0.5 * empty_queries, write });
    expect(onDynamo).toMatchObject({ deleted_too_early: 0, missed: 0, legacy_entries_left: 0 });
    expect(onDynamo.deleted + onDynamo.deleted_early_by_customer).toBe(scenario.meetings);
    // Within one sweep period of the due time (the bench's one-minute sweeps: within an hour).
    expect(onDynamo.lateness_minutes.max).toBeLessThanOrEqual(20 + 1);
  }, 240_000);
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
