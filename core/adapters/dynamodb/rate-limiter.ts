// Fixed one-minute windows counted in DynamoDB, so every Lambda instance shares one count per key.
import type { RateDecision, RateLimiter } from '../../ports/rate-limiter';
import { keys, type TableHandle, ttlAttribute, updateItem, written } from './table';

export class DynamoRateLimiter implements RateLimiter {
  constructor(private readonly table: TableHandle) {}

  async consume(subject: string, limitPerMinute: number, now = new Date()): Promise<RateDecision> {
    const epoch = Math.floor(now.getTime() / 1000);
    const window = Math.floor(epoch / 60);
    const allowed = await written(
      updateItem(this.table, {
        Key: keys.rateWindow(subject, window),
        UpdateExpression: 'ADD hits :one SET #ttl = :ttl',
        ConditionExpression: 'attribute_not_exists(hits) OR hits < :limit',
        ExpressionAttributeNames: { '#ttl': ttlAttribute },
        ExpressionAttributeValues: { ':one': 1, ':limit': limitPerMinute, ':ttl': (window + 2) * 60 },
      }),
    );
    return { allowed, retryAfterSeconds: allowed ? 0 : Math.max(1, (window + 1) * 60 - epoch) };
  }
}
