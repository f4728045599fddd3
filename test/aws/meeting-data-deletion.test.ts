// Deleting a meeting's data on the AWS shape: the table and the recordings bucket in moto, built by the composition
// root (core/adapters/wiring.ts) as the deployed functions build them. A recorded meeting's pieces and file go into
// moto's S3 through the S3 adapter; the deletion use case (the API's and the admin CLI's) and the retention sweep
// each leave the bot's prefix of the bucket empty, its segments and delivery bodies gone, and another bot untouched.
import { randomUUID } from 'node:crypto';
import { CreateBucketCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { s3Client } from '../../core/adapters/aws-clients';
import { ensureTable } from '../../core/adapters/dynamodb/table';
import { type Adapters, wireAdapters } from '../../core/adapters/wiring';
import type { BotSession } from '../../core/bots/session';
import { loadConfig } from '../../core/config';
import type { OutboxMessage } from '../../core/control/outbox';
import { type DataDeletionDeps, deleteMeetingData } from '../../core/data/delete-meeting-data';
import { listForRetention, sweepRetention } from '../../core/data/retention';
import { createLogger } from '../../core/log';
import { requires, skipReason } from '../support/requirements';
import { type Moto, motoRegion, startMoto } from './support/moto';

const skip = skipReason(requires.motoServer());
const bucket = 'meeting-bot-recordings-deletion';
const phrase = 'vermilion-lighthouse-keeper';
const day = 24 * 3600 * 1000;

describe.skipIf(skip)("a meeting's data deleted from moto's table and bucket", () => {
  let moto: Moto;
  let adapters: Adapters;
  const s3 = () => s3Client({ AWS_REGION: motoRegion, S3_ENDPOINT: moto.endpoint });

  beforeAll(async () => {
    moto = await startMoto();
    const config = loadConfig(
      { AWS_REGION: motoRegion, TABLE_NAME: 'meeting-bot-deletion', RECORDINGS_BUCKET: bucket },
      { DYNAMODB_ENDPOINT: moto.endpoint, S3_ENDPOINT: moto.endpoint },
    );
    adapters = wireAdapters(config, createLogger('silent'));
    await ensureTable(adapters.table);
    const client = s3();
    await client.send(new CreateBucketCommand({ Bucket: bucket }));
    client.destroy();
  }, 60_000);
  afterAll(async () => {
    adapters?.destroy();
    await moto?.stop();
  });

  /** The keys under the bot's prefix of the bucket, as an operator's `aws s3 ls` would list them. */
  async function objectsOf(botId: string): Promise<string[]> {
    const client = s3();
    try {
      const out = await client.send(
        new ListObjectsV2Command({ Bucket: bucket, Prefix: `recordings/${botId}/` }),
      );
      return (out.Contents ?? []).map((o) => o.Key ?? '');
    } finally {
      client.destroy();
    }
  }

  /** An ended, recorded meeting with content everywhere: segments, results, a delivery body, pieces and the file. */
  async function recordedMeeting(accountId: string, endedAt: Date): Promise<BotSession> {
    const { stores, recordings } = adapters;
    const at = endedAt.toISOString();
    const session = {
      botId: randomUUID(),
      accountId,
      status: 'completed',
      provider: 'daily',
      roomUrl: 'https://acme.daily.co/interview',
      roomName: 'interview',
      botConfig: {} as BotSession['botConfig'],
      processInsights: true,
      holdCredits: 0,
      createdAt: new Date(endedAt.getTime() - 600_000).toISOString(),
      startedAt: new Date(endedAt.getTime() - 600_000).toISOString(),
      completedAt: at,
      leftAt: at,
      exitReason: 'participant_left',
      recording: { audio: true },
      qaPairs: [{ question: `What was ${phrase}?`, answer: `${phrase} was my project.` }],
    } as BotSession;
    await stores.sessions.create(session);
    // A session written as ended: its end lists it for the retention sweep (completeSession does, before the end).
    await listForRetention({ stores, config: { RETENTION_DAYS: 30 } }, session, at);
    await stores.transcripts.saveSegment(session.botId, 1, [
      { speaker: 'Cal', participant_id: 'p1', text: `${phrase} was my project.`, started_at: at } as never,
    ]);
    await stores.deliveries.create({
      botId: session.botId,
      accountId,
      channel: 'webhook',
      event: 'session_complete',
      target: 'https://example.com/hook',
      payload: JSON.stringify({ transcript_text: phrase }),
      messageId: `msg_${session.botId}`,
      createdAt: at,
    });
    const audio = new TextEncoder().encode(phrase);
    const t0 = endedAt.getTime() - 600_000;
    await recordings.putPiece(session.botId, { attempt: 0, seq: 0 }, t0, audio);
    await recordings.putPiece(session.botId, { attempt: 0, seq: 1 }, t0, audio);
    await recordings.putPiece(session.botId, { attempt: 1, seq: 0 }, t0 + 60_000, audio);
    await recordings.putFile(session.botId, audio, {
      contentType: 'audio/webm',
      sizeBytes: audio.length,
      durationSeconds: 600,
    });
    expect(await objectsOf(session.botId)).toHaveLength(4);
    return session;
  }

  function deps(now: Date, sent: OutboxMessage[]): DataDeletionDeps {
    return {
      stores: adapters.stores,
      recordings: adapters.recordings,
      outbox: { send: async (m) => void sent.push(m) },
      log: createLogger('silent'),
      now: () => now,
    };
  }

  /** Nothing of the meeting's content is left in the table or the bucket; the tombstone is. */
  async function expectOnlyTombstone(botId: string): Promise<void> {
    expect(await objectsOf(botId)).toEqual([]);
    expect(await adapters.stores.transcripts.load(botId)).toEqual([]);
    const deliveries = await adapters.stores.deliveries.list(botId);
    expect(deliveries).toHaveLength(1);
    expect(JSON.stringify(deliveries)).not.toContain(phrase);
    const tomb = await adapters.stores.sessions.get(botId);
    expect(tomb).toMatchObject({ botId, status: 'completed', dataDeletedAt: expect.any(String) });
    expect(JSON.stringify(tomb)).not.toContain(phrase);
  }

  it("the deletion use case empties the bot's prefix of the bucket, and only it; a repeat is harmless", async () => {
    const { account } = await adapters.stores.accounts.create('Deleting on AWS');
    const meeting = await recordedMeeting(account.accountId, new Date());
    const other = await recordedMeeting(account.accountId, new Date());
    const sent: OutboxMessage[] = [];
    const result = await deleteMeetingData(deps(new Date(), sent), meeting, 'requested');
    expect(result).toMatchObject({ bot_id: meeting.botId, status: 'data_deleted' });
    await expectOnlyTombstone(meeting.botId);
    expect(sent).toEqual([expect.objectContaining({ kind: 'bot_event', event: 'bot.data_deleted' })]);
    // Another meeting of the same account keeps all of it.
    expect(await objectsOf(other.botId)).toHaveLength(4);
    expect(await adapters.recordings.describeFile(other.botId)).toMatchObject({ durationSeconds: 600 });

    const again = await deleteMeetingData(deps(new Date(), sent), meeting, 'requested');
    expect(again.data_deleted_at).toBe(result.data_deleted_at);
    await expectOnlyTombstone(meeting.botId);
  });

  it('a live transcript delivery claimed after the deletion is not stored; before it, created claimed once', async () => {
    const { account } = await adapters.stores.accounts.create('Queued content on AWS');
    const kept = await recordedMeeting(account.accountId, new Date());
    const erased = await recordedMeeting(account.accountId, new Date());
    await deleteMeetingData(deps(new Date(), []), erased, 'requested');
    const job = (botId: string) => ({
      botId,
      accountId: account.accountId,
      channel: 'webhook' as const,
      event: 'transcript.data#7',
      target: 'https://hooks.example.com/in',
      payload: JSON.stringify({ event: 'transcript.data', text: phrase }),
      messageId: `msg_${randomUUID()}`,
      createdAt: new Date().toISOString(),
      seq: 7,
      meetingContent: true,
    });
    const claim = (botId: string, nowMs = Date.now()) =>
      adapters.stores.deliveries.claim(
        botId,
        'webhook',
        'transcript.data#7',
        nowMs + 60_000,
        nowMs,
        job(botId),
      );

    // The session's tombstone cancels the TransactWriteItems: nothing of it reaches the table.
    expect(await claim(erased.botId)).toBe('data_deleted');
    expect(await adapters.stores.deliveries.get(erased.botId, 'webhook', 'transcript.data#7')).toBeNull();
    await expectOnlyTombstone(erased.botId);

    // A session whose data is kept: created claimed (the job's record), then a duplicate finds the claim held.
    const first = await claim(kept.botId);
    expect(first).toMatchObject({ status: 'pending', seq: 7, payload: expect.stringContaining(phrase) });
    expect(await claim(kept.botId)).toBeNull();
    // Once the claim expires, the retry's job claims the stored record (its own webhook-id, not the job's).
    const stored = await claim(kept.botId, Date.now() + 120_000);
    expect(stored).toMatchObject({
      messageId: (first as { messageId: string }).messageId,
      status: 'pending',
    });
  });

  it("the retention sweep deletes the same set once the account's retention has passed", async () => {
    const { account } = await adapters.stores.accounts.create('Retention on AWS');
    const ended = new Date();
    const meeting = await recordedMeeting(account.accountId, ended);
    const sweep = (now: Date) =>
      sweepRetention({
        ...deps(now, []),
        stores: adapters.stores,
        config: { RETENTION_DAYS: 30 },
        deadline: new Date(now.getTime() + 30_000),
      });

    // Day 29: kept, every object still there.
    expect((await sweep(new Date(ended.getTime() + 29 * day))).deleted).not.toContain(meeting.botId);
    expect(await objectsOf(meeting.botId)).toHaveLength(4);
    // Past 30 days: the prefix is empty, the tombstone stays.
    const swept = await sweep(new Date(ended.getTime() + 30 * day + 60_000));
    expect(swept).toMatchObject({ failed: [] });
    expect(swept.deleted).toContain(meeting.botId);
    await expectOnlyTombstone(meeting.botId);
  });
});
