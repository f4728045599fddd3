// Fixed one-minute windows counted in DynamoDB, so every Lambda instance shares one count per key.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateDecision, RateLimiter } from '../../ports/rate-limiter';
import { isConditionFailure, keys, type TableHandle, ttlAttribute } from './table';

export class DynamoRateLimiter implements RateLimiter {
  constructor(private readonly table: TableHandle) {}

  async consume(subject: string, limitPerMinute: number, now = new Date()): Promise<RateDecision> {
    const epoch = Math.floor(now.getTime() / 1000);
    const window = Math.floor(epoch / 60);
    try {
      await this.table.doc.send(
        new UpdateCommand({
          TableName: this.table.tableName,
          Key: keys.rateWindow(subject, window),
          UpdateExpression: 'ADD hits :one SET #ttl = :ttl',
          ConditionExpression: 'attribute_not_exists(hits) OR hits < :limit',
          ExpressionAttributeNames: { '#ttl': ttlAttribute },
          ExpressionAttributeValues: { ':one': 1, ':limit': limitPerMinute, ':ttl': (window + 2) * 60 },
        }),
      );
      return { allowed: true, retryAfterSeconds: 0 };
    } catch (err) {
      if (!isConditionFailure(err)) throw err;
      return { allowed: false, retryAfterSeconds: Math.max(1, (window + 1) * 60 - epoch) };
    }
  }
}
