// Transcript segments: the lines a bot saved at each flush, one item per flush, so a crash loses only the last.
// Each task of a session (the first, then each replacement) numbers its own segments: SEGMENT#00000001 … for the
// first, SEGMENT#R01#00000001 … for the first replacement (sorting after the first's), so two tasks that overlap
// during a hand-over never overwrite each other. The segments are the transcript's only copy: nothing rewrites the
// whole text while the bot runs, so the write volume grows with the meeting's length, not its square.
import { mergeAttempts, type Utterance } from '../../bots/transcript';
import type { PurgeCursor } from '../../ports/data-deletions';
import type { Segment, TranscriptStore } from '../../ports/transcript-store';
import { deleteItems, keys, putItem, queryAll, queryPage, type TableHandle, updateItem } from './table';

const segmentPrefix = 'SEGMENT#';
const seqDigits = 8;
const lastSeq = '9'.repeat(seqDigits);
/**
 * Segments a purge deletes per call: four BatchWriteItem requests, a fraction of a second, so the deletion's deadline
 * is checked often (a page read stops at 1 MB anyway: a segment can hold many lines).
 */
const purgePageItems = 100;

/** The key prefix of task `attempt`'s segments: `SEGMENT#` for the first, `SEGMENT#R<nn>#` for a replacement. */
function attemptPrefix(attempt: number): string {
  if (!Number.isSafeInteger(attempt) || attempt < 0 || attempt > 99)
    throw new Error(`attempt ${attempt} out of range`);
  return `${segmentPrefix}${attempt > 0 ? `R${String(attempt).padStart(2, '0')}#` : ''}`;
}

function segmentKey(attempt: number, seq: number): string {
  if (!Number.isSafeInteger(seq) || seq < 1 || seq > Number(lastSeq))
    throw new Error(`segment ${seq} out of range`);
  return `${attemptPrefix(attempt)}${String(seq).padStart(seqDigits, '0')}`;
}

export class DynamoTranscriptStore implements TranscriptStore {
  constructor(private readonly table: TableHandle) {}

  /**
   * Saves one flush's lines under its sequence number; a retried flush overwrites itself. A task's first segment
   * marks the session first (`transcript_at`), so a reader that saw a session without the mark knows it had no
   * segment then and skips reading them (core/bots/transcript-cache.ts): one write per task, not per segment, and
   * none when the caller says the session holds the mark (the bot's join write sets it, so an utterance stays at four
   * calls end to end, the first one included).
   */
  async saveSegment(
    botId: string,
    seq: number,
    utterances: Utterance[],
    attempt = 0,
    options: { marked?: boolean } = {},
  ): Promise<void> {
    if (seq === 1 && !options.marked) {
      await updateItem(this.table, {
        Key: keys.session(botId),
        UpdateExpression: 'SET transcript_at = :now',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':now': new Date().toISOString() },
      });
    }
    await putItem(this.table, {
      Item: {
        pk: keys.session(botId).pk,
        sk: segmentKey(attempt, seq),
        type: 'transcript_segment',
        utterances,
      },
    });
  }

  /** Every saved line of every task of the session, in order, each once (mergeAttempts). */
  async load(botId: string): Promise<Utterance[]> {
    return mergeAttempts(await this.loadAttempts(botId));
  }

  /** The lines each task saved, by attempt (index 0 the first task's), each in its saved order. */
  async loadAttempts(botId: string, beforeAttempt = Number.POSITIVE_INFINITY): Promise<Utterance[][]> {
    const items = await queryAll(this.table, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.session(botId).pk, ':prefix': segmentPrefix },
      ConsistentRead: true,
    });
    const attempts: Utterance[][] = [];
    for (const item of items) {
      const rest = String(item.sk).slice(segmentPrefix.length);
      const attempt = rest.startsWith('R') ? Number(rest.slice(1, rest.indexOf('#'))) : 0;
      if (attempt >= beforeAttempt) continue;
      while (attempts.length <= attempt) attempts.push([]);
      attempts[attempt]?.push(...(item.utterances as Utterance[]));
    }
    return attempts;
  }

  /**
   * One task's segments from `fromSeq` on: a key range within that task's prefix (a replacement's `R` keys sort
   * after every first-task key, so the first task's range never reaches them).
   */
  async segmentsFrom(botId: string, attempt: number, fromSeq: number): Promise<Segment[]> {
    const prefix = attemptPrefix(attempt);
    const items = await queryAll(this.table, {
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: {
        ':pk': keys.session(botId).pk,
        ':from': segmentKey(attempt, Math.max(1, fromSeq)),
        ':to': `${prefix}${lastSeq}`,
      },
      ConsistentRead: true,
    });
    return items.map((item) => ({
      seq: Number(String(item.sk).slice(prefix.length)),
      utterances: item.utterances as Utterance[],
    }));
  }

  /** A page of segments by key (a keys-only Query of up to purgePageItems), then deleted 25 to a request. */
  async purgePage(botId: string, from?: PurgeCursor): Promise<PurgeCursor | undefined> {
    const { items, next } = await queryPage(
      this.table,
      {
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
        ExpressionAttributeValues: { ':pk': keys.session(botId).pk, ':prefix': segmentPrefix },
        ProjectionExpression: 'pk, sk',
        ConsistentRead: true,
        Limit: purgePageItems,
      },
      from,
    );
    await deleteItems(
      this.table,
      items.map((i) => ({ pk: String(i.pk), sk: String(i.sk) })),
    );
    return next;
  }
}
