// Storage that grows with the meeting, not its square: the transcript kept once (segments, caught up incrementally by
// readers), sessions of the old layout read unchanged, the stop request in its own small item, and the capacity rule
// the storage benchmark's units rest on (dynalite's ConsumedCapacity, checked against DynamoDB's documented rule).
import {
  CreateTableCommand,
  type DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
} from '@aws-sdk/client-dynamodb';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packText } from '../../core/adapters/dynamodb/packed-text';
import { keys } from '../../core/adapters/dynamodb/table';
import type { Utterance } from '../../core/bots/transcript';
import { TranscriptCache } from '../../core/bots/transcript-cache';
import type { TaskRunner } from '../../core/ports/task-runner';
import { type LocalDynamoClient, localDynamoClient } from '../support/local-dynamo';
import { startTestStack, type TestStack } from '../support/local-stack';

const noopRunner: TaskRunner = { start: async (botId) => ({ taskRef: `t:${botId}` }), stop: async () => {} };

let stack: TestStack;
let key: string;

beforeAll(async () => {
  stack = await startTestStack();
  stack.deps.runner = noopRunner;
  ({ apiKey: key } = await stack.account(100));
});
afterAll(() => stack?.close());

async function startBot(): Promise<string> {
  const res = await stack.request('POST', '/api/bot/join', {
    key,
    body: { provider: 'local', room_url: `${stack.baseUrl}/rooms/storage` },
  });
  expect(res.status).toBe(201);
  return res.body.bot_id;
}

const line = (n: number, speaker = 'Ann'): Utterance => ({
  speaker,
  participant_id: speaker.toLowerCase(),
  started_at: new Date(Date.UTC(2026, 10, 25, 9, 0, n)).toISOString(),
  text: `Line ${n}.`,
});

const status = async (botId: string) =>
  (await stack.request('GET', `/api/bot/${botId}/status`, { key })).body;

describe('the transcript, stored once', () => {
  it('segmentsFrom reads one task’s segments from a number on, never another task’s', async () => {
    const botId = await startBot();
    for (let seq = 1; seq <= 12; seq++) await stack.deps.transcripts.saveSegment(botId, seq, [line(seq)]);
    await stack.deps.transcripts.saveSegment(botId, 1, [line(100, 'Rep')], 1);
    const from10 = await stack.deps.transcripts.segmentsFrom(botId, 0, 10);
    expect(from10.map((s) => s.seq)).toEqual([10, 11, 12]);
    expect(from10[0]!.utterances).toEqual([line(10)]);
    expect((await stack.deps.transcripts.segmentsFrom(botId, 1, 1)).map((s) => s.utterances)).toEqual([
      [line(100, 'Rep')],
    ]);
    expect(await stack.deps.transcripts.segmentsFrom(botId, 2, 1)).toEqual([]);
  });

  it('the session item never carries the text: a flush writes only its segment', async () => {
    const botId = await startBot();
    await stack.deps.transcripts.saveSegment(botId, 1, [line(1)]);
    const { Item } = await stack.table.doc.client.send(
      new GetItemCommand({
        TableName: stack.table.tableName,
        Key: { pk: { S: keys.session(botId).pk }, sk: { S: 'SESSION' } },
      }),
    );
    expect(Item).toBeDefined();
    expect(Item).not.toHaveProperty('transcript');
    expect((await status(botId)).transcript).toBe('Ann: Line 1.');
  });

  it('a reader catches up with only the new segments, and sees a retried flush that grew its segment', async () => {
    const botId = await startBot();
    const read: number[] = [];
    const store = {
      segmentsFrom: async (id: string, attempt: number, fromSeq: number) => {
        read.push(fromSeq);
        return stack.deps.transcripts.segmentsFrom(id, attempt, fromSeq);
      },
    };
    const cache = new TranscriptCache(store, 0);
    const session = { botId, status: 'running' as const, replacements: undefined };
    for (let seq = 1; seq <= 3; seq++) await stack.deps.transcripts.saveSegment(botId, seq, [line(seq)]);
    expect((await cache.read(session, 1)).lines).toEqual([line(1), line(2), line(3)]);
    // Segment 3 saved again with a line more (its first write succeeded but the bot saw an error), then segment 4.
    await stack.deps.transcripts.saveSegment(botId, 3, [line(3), line(4)]);
    await stack.deps.transcripts.saveSegment(botId, 4, [line(5)]);
    expect((await cache.read(session, 2)).text()).toBe(
      ['Ann: Line 1.', 'Ann: Line 2.', 'Ann: Line 3.', 'Ann: Line 4.', 'Ann: Line 5.'].join('\n'),
    );
    // Each read starts at the last segment it saw, not at the first.
    expect(read).toEqual([1, 3]);
    // Ended: read once more, then served from memory.
    const ended = { ...session, status: 'completed' as const };
    expect((await cache.read(ended, 3)).lines).toHaveLength(5);
    expect((await cache.read(ended, 4)).lines).toHaveLength(5);
    expect(read).toEqual([1, 3, 4]);
  });
});

describe('sessions stored by the old layout', () => {
  it('read correctly: the segments give the transcript, the old text on the session item is ignored', async () => {
    const botId = await startBot();
    const session = (await stack.deps.sessions.get(botId))!;
    // What the old layout left: the live copy (or the final text) on the session item, beside the same segments.
    await stack.table.doc.send(
      new PutCommand({
        TableName: stack.table.tableName,
        Item: {
          ...keys.session(botId),
          type: 'session',
          bot_id: botId,
          account_id: session.accountId,
          status: 'completed',
          provider: 'local',
          room_url: session.roomUrl,
          room_name: session.roomName,
          bot_config: session.botConfig,
          process_insights: true,
          hold_credits: session.holdCredits,
          created_at: session.createdAt,
          started_at: session.startedAt,
          completed_at: new Date().toISOString(),
          exit_reason: 'participant_left',
          // A long meeting's text was stored Brotli-packed (binary): it must not trouble the read either.
          transcript: packText(`Ann: Line 1.\nBen: Line 2.\n${'Ann: and so on.\n'.repeat(1000)}`),
          qa_pairs: [],
          insights: null,
        },
      }),
    );
    await stack.deps.transcripts.saveSegment(botId, 1, [line(1)]);
    await stack.deps.transcripts.saveSegment(botId, 2, [line(2, 'Ben')]);
    expect(
      (
        await stack.table.doc.client.send(
          new GetItemCommand({
            TableName: stack.table.tableName,
            Key: { pk: { S: keys.session(botId).pk }, sk: { S: 'SESSION' } },
          }),
        )
      ).Item?.transcript?.B,
    ).toBeDefined();
    const view = await status(botId);
    expect(view).toMatchObject({ status: 'completed', transcript: 'Ann: Line 1.\nBen: Line 2.' });
    const page = await stack.request('GET', `/api/bot/${botId}/transcript`, { key });
    expect(page.body.utterances.map((u: { text: string }) => u.text)).toEqual(['Line 1.', 'Line 2.']);
  });
});

describe('the stop request', () => {
  it('the leave writes it on the session and in its own item; the bot reads only that item', async () => {
    const botId = await startBot();
    expect(await stack.deps.sessions.stopRequested(botId)).toBe(false);
    expect((await stack.request('POST', `/v1/bots/leave/${botId}`, { key })).status).toBe(202);
    expect(await stack.deps.sessions.stopRequested(botId)).toBe(true);
    expect((await stack.deps.sessions.get(botId))?.stopRequestedAt).toBeTruthy();
    const { Item } = await stack.table.doc.client.send(
      new GetItemCommand({
        TableName: stack.table.tableName,
        Key: { pk: { S: keys.stopRequest(botId).pk }, sk: { S: keys.stopRequest(botId).sk } },
      }),
    );
    // Small: what a poll costs is the minimum, whatever the session holds.
    expect(JSON.stringify(Item).length).toBeLessThan(300);
  });
});

describe('consumed capacity (what bench/storage.ts sums)', () => {
  let local: LocalDynamoClient;
  let client: DynamoDBClient;
  beforeAll(async () => {
    local = await localDynamoClient();
    client = local.client;
    await client.send(
      new CreateTableCommand({
        TableName: 'units',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [{ AttributeName: 'pk', AttributeType: 'S' }],
        KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' }],
      }),
    );
  });
  afterAll(async () => {
    await local?.close();
  });

  /** DynamoDB's rule: an item's size is its attribute names' and values' UTF-8 bytes (here `pk`, `v`: strings). */
  const sizeOf = (pk: string, v: string) => 'pk'.length + pk.length + 'v'.length + v.length;

  it('follows DynamoDB’s rule: writes per 1 KB, reads per 4 KB, eventually consistent reads at half', async () => {
    for (const bytes of [10, 1000, 1021, 1022, 3000, 4090, 4091, 9000]) {
      const pk = `k${bytes}`;
      const v = 'x'.repeat(bytes);
      const size = sizeOf(pk, v);
      const put = await client.send(
        new PutItemCommand({
          TableName: 'units',
          Item: { pk: { S: pk }, v: { S: v } },
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
      expect(put.ConsumedCapacity?.CapacityUnits, `write of ${size} bytes`).toBe(Math.ceil(size / 1024));
      for (const consistent of [true, false]) {
        const get = await client.send(
          new GetItemCommand({
            TableName: 'units',
            Key: { pk: { S: pk } },
            ConsistentRead: consistent,
            ReturnConsumedCapacity: 'TOTAL',
          }),
        );
        expect(get.ConsumedCapacity?.CapacityUnits, `read of ${size} bytes`).toBe(
          Math.ceil(size / 4096) / (consistent ? 1 : 2),
        );
      }
    }
  });

  it('an overwrite costs the larger of the old and the new item', async () => {
    const big = 'x'.repeat(5000);
    await client.send(new PutItemCommand({ TableName: 'units', Item: { pk: { S: 'ow' }, v: { S: big } } }));
    const small = await client.send(
      new PutItemCommand({
        TableName: 'units',
        Item: { pk: { S: 'ow' }, v: { S: 'x' } },
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    expect(small.ConsumedCapacity?.CapacityUnits).toBe(Math.ceil(sizeOf('ow', big) / 1024));
  });
});
