// A dependency that accepts the connection and never answers: our clients give up after their request timeout
// (a TimeoutError, after the SDK's retries) instead of waiting for ever. The SDK's default only logs a warning when
// the timeout passes, so without `throwOnRequestTimeout` this call would hang (and this test time out).
import { GetQueueUrlCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqsClient } from '../../core/adapters/aws-clients';
import { type SilentServer, silentServer } from '../support/silent-server';

let server: SilentServer;
beforeAll(async () => {
  server = await silentServer();
});
afterAll(async () => {
  await server?.close();
});

describe('a dependency that never answers', () => {
  it('fails the call with a TimeoutError once its request timeout passes, after the SDK’s retries', async () => {
    const sqs = sqsClient({ AWS_REGION: 'local', SQS_ENDPOINT: server.endpoint });
    try {
      const started = Date.now();
      const call = sqs.send(new GetQueueUrlCommand({ QueueName: 'silent' }), { requestTimeout: 300 });
      await expect(call).rejects.toMatchObject({ name: 'TimeoutError' });
      expect(server.requests()).toBe(3);
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      sqs.destroy();
    }
  });
});
