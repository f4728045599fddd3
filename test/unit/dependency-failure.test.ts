// Which failures of DynamoDB, SQS and ECS are "a dependency is overloaded or slow" (dependencyFailureOf, over the
// errors the SDK builds), and the HTTP layer's answer to them: 503 dependency_unavailable with Retry-After, where any
// other fault stays a 500.
import {
  ConditionalCheckFailedException,
  InternalServerError,
  ProvisionedThroughputExceededException,
  RequestLimitExceeded,
  ThrottlingException,
  TransactionCanceledException,
} from '@aws-sdk/client-dynamodb';
import { ECSServiceException } from '@aws-sdk/client-ecs';
import { RequestThrottled } from '@aws-sdk/client-sqs';
import { describe, expect, it } from 'vitest';
import { untilProcessed } from '../../core/adapters/dynamodb/table';
import { dependencyFailureOf, UnprocessedItemsError } from '../../core/adapters/sdk-error';
import { loadConfig } from '../../core/config';
import type { ServiceDeps } from '../../core/deps';
import { ApiError } from '../../core/errors';
import type { Logger } from '../../core/log';
import { errorResult } from '../../functions/http/http-route';

const meta = (httpStatusCode: number) => ({ $metadata: { httpStatusCode } });

/** An error as Node's HTTP handler raises it when a socket fails or the SDK's requestTimeout passes. */
const networkError = (name: string, code?: string) =>
  Object.assign(new Error(`${name} ${code ?? ''}`), { name, ...(code && { code }) });

const cancelled = (...codes: string[]) =>
  new TransactionCanceledException({
    message: 'Transaction cancelled',
    CancellationReasons: codes.map((Code) => ({ Code })),
    ...meta(400),
  });

describe('dependencyFailureOf', () => {
  it('throttling of DynamoDB, SQS and ECS, however each names it', () => {
    for (const err of [
      new ProvisionedThroughputExceededException({ message: 'rate exceeded', ...meta(400) }),
      new ThrottlingException({ message: 'Throughput exceeds the current capacity', ...meta(400) }),
      new RequestLimitExceeded({ message: 'account limit', ...meta(400) }),
      new RequestThrottled({ message: 'throttled', ...meta(400) }),
      new ECSServiceException({
        name: 'ThrottlingException',
        $fault: 'client',
        message: 'Rate exceeded',
        ...meta(400),
      }),
      new ECSServiceException({
        name: 'TooManyRequestsException',
        $fault: 'client',
        message: 'slow',
        ...meta(400),
      }),
      // Any error the service sends with 429.
      new ECSServiceException({ name: 'SomethingNew', $fault: 'client', message: 'x', ...meta(429) }),
      // A transaction cancelled only because another touched the same item, or a table was throttled.
      cancelled('None', 'TransactionConflict'),
      cancelled('ThrottlingError', 'None'),
      new UnprocessedItemsError('BatchWriteItem left 2 item(s) unprocessed'),
    ]) {
      expect(dependencyFailureOf(err), err.name).toBe('throttled');
    }
  });

  it('no answer in time, or the connection failed: a timeout', () => {
    for (const err of [
      networkError('TimeoutError'),
      networkError('Error', 'ECONNRESET'),
      networkError('Error', 'ETIMEDOUT'),
      networkError('Error', 'ECONNREFUSED'),
    ]) {
      expect(dependencyFailureOf(err), err.message).toBe('timeout');
    }
  });

  it('a server fault of the service (500, 503): unavailable', () => {
    expect(dependencyFailureOf(new InternalServerError({ message: 'internal', ...meta(500) }))).toBe(
      'unavailable',
    );
    expect(
      dependencyFailureOf(
        new ECSServiceException({ name: 'ServiceUnavailable', $fault: 'server', message: 'x', ...meta(503) }),
      ),
    ).toBe('unavailable');
  });

  it('is nothing else: a failed condition, a bad request, our own fault, an aborted call', () => {
    for (const err of [
      new ConditionalCheckFailedException({ message: 'The conditional request failed', ...meta(400) }),
      cancelled('ConditionalCheckFailed', 'None'),
      cancelled('ConditionalCheckFailed', 'TransactionConflict'),
      cancelled(),
      new ECSServiceException({
        name: 'ValidationException',
        $fault: 'client',
        message: 'bad',
        ...meta(400),
      }),
      new ECSServiceException({
        name: 'AccessDeniedException',
        $fault: 'client',
        message: 'no',
        ...meta(403),
      }),
      new TypeError("Cannot read properties of undefined (reading 'x')"),
      networkError('AbortError'),
      new ApiError('not_found', 'bot session x was not found'),
    ]) {
      expect(dependencyFailureOf(err), `${err.name}: ${err.message}`).toBeUndefined();
    }
    expect(dependencyFailureOf(undefined)).toBeUndefined();
    expect(dependencyFailureOf({ name: 'ThrottlingException' })).toBeUndefined();
  });

  it('reads the cause a use case wrapped the failure in', () => {
    const wrapped = new ApiError('server_error', 'the bot could not be started', {
      cause: new ProvisionedThroughputExceededException({ message: 'rate exceeded', ...meta(400) }),
    });
    expect(dependencyFailureOf(wrapped)).toBe('throttled');
    const fault = new ApiError('server_error', 'the bot could not be started', {
      cause: new TypeError('bug'),
    });
    expect(dependencyFailureOf(fault)).toBeUndefined();
  });

  it('a batch still unprocessed after its resends is DynamoDB throttling (untilProcessed)', async () => {
    const err = await untilProcessed(
      ['a', 'b'],
      async (pending) => pending,
      (left) => `BatchWriteItem left ${left} item(s) unprocessed`,
      3,
      async () => {},
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnprocessedItemsError);
    expect(dependencyFailureOf(err)).toBe('throttled');
  });
});

describe('errorResult (the HTTP layer)', () => {
  const logged: { level: string; msg: string; fields?: Record<string, unknown> }[] = [];
  const log = {
    warn: (msg: string, fields?: Record<string, unknown>) => logged.push({ level: 'warn', msg, fields }),
    error: (msg: string, fields?: Record<string, unknown>) => logged.push({ level: 'error', msg, fields }),
  } as unknown as Logger;
  const deps = (retryAfter: string) =>
    ({
      log,
      config: loadConfig({}, { DEPENDENCY_RETRY_AFTER_SECONDS: retryAfter }),
    }) as unknown as ServiceDeps;

  it('answers an overloaded dependency 503 dependency_unavailable with Retry-After, logged at warn', () => {
    logged.length = 0;
    const res = errorResult(
      new ProvisionedThroughputExceededException({ message: 'rate exceeded', ...meta(400) }),
      'req-1',
      deps('3'),
    );
    expect(res.statusCode).toBe(503);
    expect(res.headers).toMatchObject({ 'retry-after': '3', 'x-request-id': 'req-1' });
    const body = JSON.parse(res.body!);
    expect(body).toMatchObject({ error: 'dependency_unavailable' });
    expect(body.detail).toMatch(/throttling.*retry after 3 s/);
    expect(body.message).toMatch(/Retry-After/);
    expect(logged).toEqual([
      expect.objectContaining({ level: 'warn', fields: expect.objectContaining({ kind: 'throttled' }) }),
    ]);
  });

  it('keeps a fault a 500 (logged at error), and a deliberate ApiError as it is', () => {
    logged.length = 0;
    const fault = errorResult(new TypeError('bug'), 'req-2', deps('2'));
    expect(fault.statusCode).toBe(500);
    expect(fault.headers).not.toHaveProperty('retry-after');
    expect(JSON.parse(fault.body!).error).toBe('server_error');
    expect(logged.map((l) => l.level)).toEqual(['error']);

    const wrappedFault = errorResult(
      new ApiError('server_error', 'the bot could not be started', { cause: new TypeError('bug') }),
      'req-3',
      deps('2'),
    );
    expect(wrappedFault.statusCode).toBe(500);
    expect(JSON.parse(wrappedFault.body!).detail).toBe('the bot could not be started');

    const exhausted = errorResult(
      new ApiError('capacity_exhausted', 'quota', { retryAfter: 60 }),
      'req-4',
      deps('2'),
    );
    expect(exhausted.statusCode).toBe(503);
    expect(exhausted.headers).toMatchObject({ 'retry-after': '60' });
    expect(JSON.parse(exhausted.body!).error).toBe('capacity_exhausted');
  });
});
