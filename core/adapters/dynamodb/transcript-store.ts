// Transcript segments: the lines a bot saved at each flush, one item per flush, so a crash loses only the last.
// Each task of a session (the first, then each replacement) numbers its own segments: SEGMENT#00000001 … for the
// first, SEGMENT#R01#00000001 … for the first replacement (sorting after the first's), so two tasks that overlap
// during a hand-over never overwrite each other.
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { mergeAttempts, type Utterance } from '../../bots/transcript';
import type { TranscriptStore } from '../../ports/transcript-store';
import { keys, queryAll, type TableHandle } from './table';

const segmentPrefix = 'SEGMENT#';

export class DynamoTranscriptStore implements TranscriptStore {
  constructor(private readonly table: TableHandle) {}

  /** Saves one flush's lines under its sequence number; a retried flush overwrites itself. */
  async saveSegment(botId: string, seq: number, utterances: Utterance[], attempt = 0): Promise<void> {
    if (!Number.isSafeInteger(attempt) || attempt < 0 || attempt > 99)
      throw new Error(`attempt ${attempt} out of range`);
    await this.table.doc.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: {
          pk: keys.session(botId).pk,
          sk: `${segmentPrefix}${attempt > 0 ? `R${String(attempt).padStart(2, '0')}#` : ''}${String(seq).padStart(8, '0')}`,
          type: 'transcript_segment',
          utterances,
        },
      }),
    );
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
}
