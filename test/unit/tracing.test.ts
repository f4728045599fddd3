// X-Ray through Powertools' Tracer: the Lambda entries' AWS SDK clients are captured through the one hook
// in aws-clients.ts, and outside Lambda (here) tracing is off, so wrapping and capturing change nothing.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { SQSEvent } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  bedrockClient,
  captureClientsWith,
  dynamoDocumentClient,
  ecsClient,
  pollyClient,
  sesClient,
  sqsClient,
} from '../../core/adapters/aws-clients';
import { botIdOfRequest, type HttpEvent } from '../../functions/http/http-route';
import { botIdOfBatch, captureAwsClients, traced, tracer } from '../../functions/tracing';

const config = { AWS_REGION: 'eu-west-1', DYNAMODB_ENDPOINT: 'http://127.0.0.1:9' };
const botId = '5b0c2d8e-4f1a-4c3b-9d2e-7a6f5e4d3c2b';

afterEach(() => captureClientsWith((client) => client));

describe('AWS SDK client capture', () => {
  it('passes every client aws-clients.ts builds through the hook', () => {
    const seen: string[] = [];
    captureClientsWith((client) => {
      seen.push((client as object).constructor.name);
      return client;
    });
    for (const make of [dynamoDocumentClient, sqsClient, sesClient, ecsClient, pollyClient, bedrockClient]) {
      make(config);
    }
    expect(seen.sort()).toEqual(
      [
        'BedrockRuntimeClient',
        'DynamoDBClient',
        'ECSClient',
        'PollyClient',
        'SESv2Client',
        'SQSClient',
      ].sort(),
    );
  });

  it('is off outside Lambda: no X-Ray middleware on the clients, handlers run as they are', async () => {
    // Not even loaded: the X-Ray SDK it brings enables async_hooks for the whole process.
    expect(tracer).toBeUndefined();
    captureAwsClients();
    const sqs = sqsClient(config);
    expect(sqs.middlewareStack.identify().join(' ')).not.toMatch(/XRay/i);
    const botIdOf = vi.fn(() => botId);
    const handler = traced('test', async (n: number) => n + 1, botIdOf);
    expect(await handler(1)).toBe(2);
    expect(botIdOf).not.toHaveBeenCalled();
    await expect(traced('test', async () => Promise.reject(new Error('x')))(0)).rejects.toThrow('x');
  });
});

describe('outside Lambda', () => {
  it('the local stack never loads the X-Ray SDK (its cls-hooked context would tax every promise with async_hooks)', () => {
    const probe = [
      "const { createRequire } = await import('node:module');",
      "await import('./local/stack.ts');",
      'const loaded = Object.keys(createRequire(import.meta.url).cache);',
      'console.log(JSON.stringify(loaded.filter((f) => /aws-xray-sdk|cls-hooked|powertools[\\/]tracer/.test(f))));',
    ].join('\n');
    const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', probe], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      encoding: 'utf8',
      env: { ...process.env, AWS_LAMBDA_FUNCTION_NAME: '' },
    });
    expect(JSON.parse(out.trim().split('\n').pop()!)).toEqual([]);
  }, 60_000);
});

describe('the bot id a trace is annotated with', () => {
  it("is the path's, or the one a join started", () => {
    expect(botIdOfRequest({ pathParameters: { bot_id: botId } } as unknown as HttpEvent)).toBe(botId);
    const join = { statusCode: 201, body: JSON.stringify({ status: 'started', bot_id: botId }) };
    expect(botIdOfRequest({} as HttpEvent, join)).toBe(botId);
    expect(
      botIdOfRequest({} as HttpEvent, { statusCode: 402, body: '{"error":"insufficient_credits"}' }),
    ).toBe(undefined);
  });

  it("is a queue batch's when all its messages name the same bot", () => {
    const batch = (...bodies: string[]) =>
      ({ Records: bodies.map((body) => ({ body })) }) as unknown as SQSEvent;
    const m = JSON.stringify({ bot_id: botId, kind: 'session_ended' });
    expect(botIdOfBatch(batch(m, m))).toBe(botId);
    expect(botIdOfBatch(batch(m, JSON.stringify({ bot_id: 'other' })))).toBe(undefined);
    expect(botIdOfBatch(batch('not json'))).toBe(undefined);
  });
});
