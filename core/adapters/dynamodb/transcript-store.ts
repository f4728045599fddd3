// Transcript segments: the lines a bot saved at each flush, one item per flush, so a crash loses only the last.
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { Utterance } from '../../bots/transcript';
import type { TranscriptStore } from '../../ports/transcript-store';
import { keys, queryAll, type TableHandle } from './table';

const segmentPrefix = 'SEGMENT#';

export class DynamoTranscriptStore implements TranscriptStore {
  constructor(private readonly table: TableHandle) {}

  /** Saves one flush's lines under its sequence number; a retried flush overwrites itself. */
  async saveSegment(botId: string, seq: number, utterances: Utterance[]): Promise<void> {
    await this.table.doc.send(
      new PutCommand({
        TableName: this.table.tableName,
        Item: {
          pk: keys.session(botId).pk,
          sk: `${segmentPrefix}${String(seq).padStart(8, '0')}`,
          type: 'transcript_segment',
          utterances,
        },
      }),
    );
  }

  /** Every saved line, in order. */
  async load(botId: string): Promise<Utterance[]> {
    const items = await queryAll(this.table, {
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': keys.session(botId).pk, ':prefix': segmentPrefix },
      ConsistentRead: true,
    });
    return items.flatMap((item) => item.utterances as Utterance[]);
  }
}
