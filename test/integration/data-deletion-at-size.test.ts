// Deleting a long meeting's data through the local stack: many segments, deliveries whose payloads pass DynamoDB's
// 1 MB page, a recording's objects. Every item of the table is read back through DynamoDB's own Scan, so no copy of the
// content can hide; a deletion cut off half-way (its deadline, a store that fails) is finished by the sweeper's step,
// and by the local stack's own sweep.
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys, pendingDeletionsPk, queryAll } from '../../core/adapters/dynamodb/table';
import type { BotSession } from '../../core/bots/session';
import type { OutboxMessage } from '../../core/control/outbox';
import {
  type DataDeletionDeps,
  deleteMeetingData,
  finishPendingDeletions,
  pendingDeletionGraceMs,
} from '../../core/data/delete-meeting-data';
import { createLogger } from '../../core/log';
import { startTestStack, type TestStack } from '../support/local-stack';
import { botItems, scanTableText } from '../support/table-items';
import { until } from '../support/until';

let stack: TestStack;
let key: string;
let accountId: string;

beforeAll(async () => {
  // A sweep every second: the last test waits for the local stack's own sweep to finish a deletion.
  stack = await startTestStack({ HEARTBEAT_MS: '1000', RATE_LIMIT_PER_MINUTE: '100000' });
  ({ apiKey: key, accountId } = await stack.account(100));
});
afterAll(() => stack?.close());

const segments = 240;
/** Deliveries of ~190 KB each, stored packed (~145 KB: random text barely compresses): ten pass a 1 MB page. */
const deliveries = 10;
const pieces = 6;

/** A session of this test's account, created now (running unless `fields` say otherwise). */
function sessionWith(fields: Partial<BotSession>): BotSession {
  const at = new Date().toISOString();
  return {
    botId: randomUUID(),
    accountId,
    status: 'running',
    provider: 'local',
    roomUrl: 'http://127.0.0.1/rooms/at-size',
    roomName: 'at-size',
    processInsights: true,
    holdCredits: 0,
    createdAt: at,
    startedAt: at,
    completedAt: null,
    ...fields,
  } as BotSession;
}

/** A meeting that ended, with its content in every store; every copy of it carries `phrase`. */
async function endedMeeting(phrase: string): Promise<{ botId: string; token: string }> {
  const botId = randomUUID();
  const token = `daily-token-${randomUUID()}`;
  const ended = new Date(Date.now() - 60_000).toISOString();
  const session = sessionWith({
    botId,
    status: 'completed',
    botConfig: {
      name: 'Interviewer',
      bot_prompt: `Ask about the ${phrase} project.`,
      bot_greeting: `Hello ${phrase}, welcome.`,
      stop_phrase: `goodbye ${phrase}`,
      recording_notice_text: `Recording for ${phrase}.`,
      video_mode: 'static',
      voice: 'Joanna',
    } as BotSession['botConfig'],
    email: `${phrase}@example.com`,
    meetingToken: token,
    analysisPrompt: `Score the ${phrase} answers.`,
    summaryFormatPrompt: `Summarise ${phrase} in bullets.`,
    createdAt: new Date(Date.now() - 3_600_000).toISOString(),
    startedAt: new Date(Date.now() - 3_600_000).toISOString(),
    completedAt: ended,
    leftAt: ended,
    exitReason: 'participant_left',
    qaPairs: [{ question: `Tell me about ${phrase}?`, answer: `${phrase} was mine.` }],
    insights: { summary: `${phrase} went well.` } as BotSession['insights'],
    recording: { audio: true },
    recordingFile: { durationSeconds: 14_400, sizeBytes: 6 * 1024, gaps: [] },
  });
  await stack.deps.sessions.create(session);
  for (let seq = 1; seq <= segments; seq++) {
    await stack.deps.transcripts.saveSegment(botId, seq, [
      {
        speaker: 'Cal',
        participant_id: 'p1',
        text: `Line ${seq} about ${phrase}.`,
        started_at: ended,
        seq,
      } as never,
    ]);
  }
  for (let n = 0; n < deliveries; n++) {
    await stack.deps.deliveries.create({
      botId,
      accountId,
      channel: 'webhook',
      event: `transcript.data#${n + 1}`,
      target: 'https://example.com/hook',
      payload: JSON.stringify({ text: phrase, noise: randomBytes(140 * 1024).toString('base64') }),
      messageId: `msg_${botId}_${n}`,
      createdAt: ended,
      seq: n + 1,
    });
  }
  const recordings = stack.deps.recordings();
  for (let seq = 0; seq < pieces; seq++)
    await recordings.putPiece(botId, { attempt: 0, seq }, Date.now(), new TextEncoder().encode(phrase));
  await recordings.putFile(botId, new TextEncoder().encode(phrase), {
    contentType: 'audio/webm',
    sizeBytes: phrase.length,
    durationSeconds: 14_400,
  });
  return { botId, token };
}

/** The table's items, through DynamoDB's own Scan, that still hold any of `texts`. */
async function itemsHolding(...texts: string[]): Promise<string[]> {
  return (await scanTableText(stack.table)).filter((item) => texts.some((t) => item.includes(t)));
}

/** The recording's objects left in the local store: its folder on disk, and what the store's listing finds. */
async function recordingObjects(botId: string): Promise<string[]> {
  const folder = join(stack.config.RECORDINGS_DIR!, botId);
  const onDisk = existsSync(folder) ? readdirSync(folder, { recursive: true }).map(String) : [];
  const listed = await stack.deps.recordings().listPieces(botId);
  const file = await stack.deps.recordings().describeFile(botId);
  return [
    ...onDisk.filter((f) => f.endsWith('.webm')),
    ...listed.map((p) => `piece ${p.attempt}/${p.seq}`),
    ...(file ? ['file'] : []),
  ];
}

async function pendingEntries(botId: string): Promise<string[]> {
  const items = await queryAll(stack.table, {
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': pendingDeletionsPk },
    ConsistentRead: true,
  });
  return items.map((i) => String(i.sk)).filter((sk) => sk.endsWith(`#${botId}`));
}

const segmentsLeft = async (botId: string) =>
  (await botItems(stack.table, botId)).filter((i) => String(i.sk).startsWith('SEGMENT#')).length;

function deletionDeps(
  overrides: Partial<DataDeletionDeps> = {},
  sent: OutboxMessage[] = [],
): DataDeletionDeps {
  return {
    stores: stack.deps,
    recordings: stack.deps.recordings(),
    outbox: { send: async (m) => void sent.push(m) },
    log: createLogger('silent'),
    now: () => new Date(),
    ...overrides,
  };
}

/** The sweeper's step as a sweep past the grace would run it (a deletion cut off just now is not yet taken up). */
const sweepLater = () =>
  finishPendingDeletions({
    stores: stack.deps,
    recordings: stack.deps.recordings(),
    log: createLogger('silent'),
    now: () => new Date(Date.now() + pendingDeletionGraceMs + 1_000),
  });

describe('deleting a long meeting', () => {
  it('removes every copy: a raw Scan of the table finds no content, the store no object, the recording is gone', async () => {
    const phrase = 'saffron-quasar-ledger';
    const { botId, token } = await endedMeeting(phrase);

    // The deliveries pass one page: a single Query stops before the last one, and the list reads them all.
    const onePage = await stack.table.doc.send(
      new QueryCommand({
        TableName: stack.table.tableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': keys.session(botId).pk, ':p': 'DELIVERY#' },
        ConsistentRead: true,
      }),
    );
    expect(onePage.LastEvaluatedKey).toBeDefined();
    expect(onePage.Items!.length).toBeLessThan(deliveries);
    expect(await stack.deps.deliveries.list(botId)).toHaveLength(deliveries);
    const view = await stack.request('GET', `/api/bot/${botId}/deliveries`, { key });
    expect(view.body.deliveries).toHaveLength(deliveries);

    expect((await stack.request('GET', `/api/bot/${botId}/status`, { key })).body.recording).not.toBeNull();
    expect((await stack.request('GET', `/api/bot/${botId}/recording`, { key })).status).toBe(200);
    expect(await itemsHolding(phrase, token)).not.toEqual([]);
    expect(await recordingObjects(botId)).toEqual(
      expect.arrayContaining(['recording.webm', 'piece 0/5', 'file']),
    );

    const deleted = await stack.request('DELETE', `/api/bot/${botId}/data`, { key });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ bot_id: botId, status: 'data_deleted' });

    expect(await itemsHolding(phrase, token)).toEqual([]);
    expect(await segmentsLeft(botId)).toBe(0);
    expect(await recordingObjects(botId)).toEqual([]);
    expect(await pendingEntries(botId)).toEqual([]);

    const recording = await stack.request('GET', `/api/bot/${botId}/recording`, { key });
    expect(recording.status).toBe(410);
    expect(recording.body.error).toBe('data_deleted');
    const status = await stack.request('GET', `/api/bot/${botId}/status`, { key });
    expect(status.status).toBe(200);
    expect(status.body).toMatchObject({
      status: 'completed',
      transcript: null,
      qa_pairs: null,
      insights: null,
      recording: null,
      data_deleted_at: deleted.body.data_deleted_at,
    });
    // Every reader copes with the prompts, the e-mail and the token gone: the list, the deliveries, the transcript.
    const list = await stack.request('GET', '/api/bots', { key });
    expect(list.body.bots.map((b: { bot_id: string }) => b.bot_id)).toContain(botId);
    const after = await stack.request('GET', `/api/bot/${botId}/deliveries`, { key });
    expect(after.body.deliveries).toHaveLength(deliveries);
    expect((await stack.request('GET', `/api/bot/${botId}/transcript`, { key })).body.utterances).toEqual([]);
    // The tombstone keeps what describes the bot, not what was said to it.
    const session = (await stack.deps.sessions.get(botId))!;
    expect(session.botConfig).toMatchObject({ name: 'Interviewer', voice: 'Joanna' });
    expect(session.botConfig.bot_prompt).toBeUndefined();
    expect(session.meetingToken).toBeUndefined();
    expect(session.email).toBeUndefined();
  }, 120_000);

  it('a deletion cut off by its deadline answers deleting, serves nothing more, and the sweep step finishes it', async () => {
    const phrase = 'cobalt-meridian-orchard';
    const { botId, token } = await endedMeeting(phrase);
    // A clock that moves a second at each look: the deadline passes after a few pages of segments.
    let tick = Date.now();
    const sent: OutboxMessage[] = [];
    const cut = await deleteMeetingData(
      deletionDeps(
        {
          now: () => {
            tick += 1_000;
            return new Date(tick);
          },
          deadline: new Date(tick + 3_500),
        },
        sent,
      ),
      (await stack.deps.sessions.get(botId))!,
      'requested',
    );
    expect(cut).toMatchObject({ bot_id: botId, status: 'deleting' });
    // Announced once, although cut off.
    expect(sent.map((m) => m.kind === 'bot_event' && m.event)).toEqual(['bot.data_deleted']);
    const left = await segmentsLeft(botId);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(segments);
    expect(await pendingEntries(botId)).toHaveLength(1);
    // Nothing of it is served any more.
    expect((await stack.request('GET', `/api/bot/${botId}/recording`, { key })).status).toBe(410);
    const status = (await stack.request('GET', `/api/bot/${botId}/status`, { key })).body;
    expect(status).toMatchObject({ transcript: null, qa_pairs: null, recording: null });

    // Not yet past the grace: a sweep now leaves it to the deletion that may still be running.
    const early = await finishPendingDeletions(deletionDeps());
    expect(early.finished).not.toContain(botId);

    const sweep = await sweepLater();
    expect(sweep.finished).toContain(botId);
    expect(await itemsHolding(phrase, token)).toEqual([]);
    expect(await recordingObjects(botId)).toEqual([]);
    expect(await pendingEntries(botId)).toEqual([]);
    // A repeat of the request answers the first time, done.
    const again = await stack.request('DELETE', `/api/bot/${botId}/data`, { key });
    expect(again.body).toEqual({
      bot_id: botId,
      status: 'data_deleted',
      data_deleted_at: cut.data_deleted_at,
    });
  }, 120_000);

  it('a deletion whose store fails half-way keeps its entry, and the sweep step finishes it', async () => {
    const phrase = 'vermilion-tundra-abacus';
    const { botId, token } = await endedMeeting(phrase);
    const failing = {
      deleteAll: async () => {
        throw new Error('the bucket refused');
      },
    };
    await expect(
      deleteMeetingData(
        deletionDeps({ recordings: failing }),
        (await stack.deps.sessions.get(botId))!,
        'requested',
      ),
    ).rejects.toThrow('the bucket refused');
    // The stores before the failing one are purged; the session's own content (the last) is not.
    expect(await segmentsLeft(botId)).toBe(0);
    expect(await itemsHolding(phrase, token)).not.toEqual([]);
    expect(await pendingEntries(botId)).toHaveLength(1);

    expect((await sweepLater()).finished).toContain(botId);
    expect(await itemsHolding(phrase, token)).toEqual([]);
    expect(await recordingObjects(botId)).toEqual([]);
    expect(await pendingEntries(botId)).toEqual([]);
  }, 120_000);

  it("the local stack's own sweep finishes a deletion cut off earlier", async () => {
    const phrase = 'amber-lattice-comet';
    const { botId, token } = await endedMeeting(phrase);
    // Begun (and cut off at once) two grace periods ago, as a data function that timed out then.
    const begun = new Date(Date.now() - 2 * pendingDeletionGraceMs);
    const cut = await deleteMeetingData(
      deletionDeps({ now: () => begun, deadline: begun }),
      (await stack.deps.sessions.get(botId))!,
      'requested',
    );
    expect(cut.status).toBe('deleting');
    expect(await segmentsLeft(botId)).toBe(segments);
    await until(async () => (await pendingEntries(botId)).length === 0, 60_000);
    expect(await itemsHolding(phrase, token)).toEqual([]);
    expect(await recordingObjects(botId)).toEqual([]);
  }, 120_000);
});

describe("the session's Daily meeting token", () => {
  it('stays while the session runs (a replacement joins with it) and goes with its end', async () => {
    for (const end of ['completed', 'failed'] as const) {
      const session = sessionWith({
        botConfig: { name: 'Bot' } as BotSession['botConfig'],
        meetingToken: 'secret-daily-token',
      });
      const { botId, createdAt: at } = session;
      await stack.deps.sessions.create(session);
      expect(await stack.deps.sessions.updateRunning(botId, { heartbeatAt: at })).toBe(true);
      expect((await stack.deps.sessions.get(botId))?.meetingToken).toBe('secret-daily-token');
      // Every end is the session's last running write (finish-session.ts, through updateRunning).
      expect(await stack.deps.sessions.updateRunning(botId, { status: end, completedAt: at })).toBe(true);
      const ended = (await botItems(stack.table, botId)).find((i) => i.sk === 'SESSION')!;
      expect(ended.status).toBe(end);
      expect(ended.meeting_token).toBeUndefined();
    }
  });
});

describe('a session item without a bot_config map', () => {
  it('still loses its top-level content at deletion', async () => {
    // No botConfig: the shared fields only.
    const stored = sessionWith({
      status: 'completed',
      completedAt: new Date().toISOString(),
      email: 'old-item@example.com',
      qaPairs: [{ question: 'Old question?', answer: 'Old answer.' }],
    });
    const { botId } = stored;
    await stack.deps.sessions.create(stored);
    const session = (await stack.deps.sessions.get(botId))!;
    expect((await deleteMeetingData(deletionDeps(), session, 'operator')).status).toBe('data_deleted');
    const item = (await botItems(stack.table, botId)).find((i) => i.sk === 'SESSION')!;
    expect(item.qa_pairs).toBeUndefined();
    expect(item.email).toBeUndefined();
    expect(item.data_deleted_at).toEqual(expect.any(String));
  });
});
