// The one place that builds AWS SDK clients from configuration; local and cloud differ only in the endpoints here.

import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { BedrockClient } from '@aws-sdk/client-bedrock';
import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ECSClient } from '@aws-sdk/client-ecs';
import { IAMClient } from '@aws-sdk/client-iam';
import { PollyClient } from '@aws-sdk/client-polly';
import { S3Client } from '@aws-sdk/client-s3';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { ServiceQuotasClient } from '@aws-sdk/client-service-quotas';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SQSClient } from '@aws-sdk/client-sqs';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import type { Config } from '../config';
import { DocumentClient } from './dynamodb/document-client';

/** Wraps each client as it is built; tracing (functions/tracing.ts) sets it in Lambda, elsewhere clients are bare. */
type CaptureClient = <T>(client: T) => T;
let capture: CaptureClient = (client) => client;

/**
 * Instruments every client built after this call (X-Ray's SDK middleware). A process-wide hook rather than a
 * parameter so that only the Lambda entry points import the tracer: the bot-task and the local stack stay without it.
 */
export function captureClientsWith(fn: CaptureClient): void {
  capture = fn;
}

/** A client as every one is handed out: its configuration made fast, then captured. */
const ready = <T extends { config: object }>(client: T): T => capture(fastConfig(client));

/**
 * The SDK builds a client's configuration by adding its fields one at a time, and V8 keeps an object given that many
 * fields in dictionary mode, where copying it is slow. The endpoint, serializer and deserializer middleware copy the
 * whole configuration (`{ ...config }`) on every request. V8 moves an object to fast properties when it is a
 * prototype that property reads go through: a few reads through a throwaway instance, once per client. Nothing about
 * the object changes but V8's storage of it (its fields, values, accessors and prototype stay as they were).
 * Measured in a Lambda-shaped process (no endpoint override, session credentials from the environment, one call at a
 * time, the stand-in in another process), `npx tsx bench/sdk-client-cpu.ts 24 250`, 2026-11-28 on the loaded 2-core
 * VM (load about 20): with it our process's CPU per call is 0.88× of that without for DynamoDB (Get/Put through
 * DocumentClient, 565 µs without; middle half of 24 paired rounds 0.83–0.96×) and 0.91× for SQS SendMessage (668 µs
 * without; 0.86–0.96×). On that machine identical clients measured alike read 1.04–1.11× of each other, so this is
 * a saving of about a tenth, not a precise figure; measure it again after an SDK upgrade.
 */
export function fastConfig<T extends { config: object }>(client: T): T {
  const probe = Object.create(client.config) as { region?: unknown };
  for (let i = 0; i < 32; i++) readRegion(probe);
  return client;
}

const readRegion = (o: { region?: unknown }) => o.region;

/** Endpoint overrides point at local stand-ins, which accept any credentials; AWS uses the default chain. */
const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * Connection reuse: without a keep-alive agent every call opens a new connection, which measured at about
 * twice the CPU per DynamoDB call (bench/api-latency). Sockets are capped so a burst cannot exhaust ports.
 * A call whose answer has not begun within `requestTimeout` fails with a TimeoutError (retried by the SDK, then a
 * 503 `dependency_unavailable` or the caller's fallback); the SDK's default only logs a warning and waits on.
 */
function connectionOptions(
  endpoint: string | undefined,
  requestTimeout = 10_000,
  throwOnRequestTimeout = true,
) {
  const requestHandler = new NodeHttpHandler({
    httpAgent: new HttpAgent({ keepAlive: true, maxSockets: 64 }),
    httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets: 64 }),
    connectionTimeout: 3_000,
    requestTimeout,
    throwOnRequestTimeout,
  });
  if (!endpoint) return { requestHandler };
  // A fixed endpoint skips per-call endpoint-rule evaluation for the local stand-ins.
  const url = new URL(endpoint);
  return { requestHandler, endpoint, endpointProvider: () => ({ url }), credentials: localCredentials };
}

export function dynamoDocumentClient(config: Pick<Config, 'AWS_REGION' | 'DYNAMODB_ENDPOINT'>) {
  const client = new DynamoDBClient({
    region: config.AWS_REGION,
    maxAttempts: 3,
    // Each operation's handler chain is built once, not on every call (see DocumentClient).
    cacheMiddleware: true,
    ...connectionOptions(config.DYNAMODB_ENDPOINT),
  });
  // No SDK logger is configured, yet its middleware walks every request and response against the operation's
  // schema to mask sensitive fields for a log line nobody receives: about a third of this client's CPU per call.
  client.middlewareStack.remove('loggerMiddleware');
  return new DocumentClient(ready(client));
}

/**
 * The handler options of an SQS long poll (ReceiveMessage waiting `waitSeconds`): its request timeout covers the
 * wait and 5 s more, where the client's own 10 s would fail every empty poll longer than that.
 */
export function longPollOptions(waitSeconds: number, abortSignal: AbortSignal) {
  return { abortSignal, requestTimeout: (waitSeconds + 5) * 1000 };
}

export function sqsClient(config: Pick<Config, 'AWS_REGION' | 'SQS_ENDPOINT'>) {
  return ready(new SQSClient({ region: config.AWS_REGION, ...connectionOptions(config.SQS_ENDPOINT) }));
}

export function sesClient(config: Pick<Config, 'AWS_REGION' | 'SES_ENDPOINT'>) {
  return ready(new SESv2Client({ region: config.AWS_REGION, ...connectionOptions(config.SES_ENDPOINT) }));
}

/**
 * Path-style addressing with an endpoint override (moto serves buckets by path, not by host name). S3 keeps the SDK's
 * endpoint rules: they put the bucket into the address, which a fixed endpoint provider would leave out. Its 30 s
 * request timeout only warns: a recording's upload (one PutObject, its length set by the meeting's) may take longer.
 */
export function s3Client(config: Pick<Config, 'AWS_REGION' | 'S3_ENDPOINT'>) {
  const { endpointProvider: _, ...options } = connectionOptions(
    config.S3_ENDPOINT,
    30_000,
    false,
  ) as ReturnType<typeof connectionOptions> & { endpointProvider?: unknown };
  return ready(
    new S3Client({ region: config.AWS_REGION, forcePathStyle: Boolean(config.S3_ENDPOINT), ...options }),
  );
}

export function bedrockClient(config: Pick<Config, 'AWS_REGION'>) {
  // A Converse call can take a minute; the insights engine does its own throttling retries (so one SDK attempt).
  return ready(
    new BedrockRuntimeClient({
      region: config.AWS_REGION,
      maxAttempts: 1,
      requestHandler: new NodeHttpHandler({
        httpsAgent: new HttpsAgent({ keepAlive: true, maxSockets: 16 }),
        connectionTimeout: 5_000,
        requestTimeout: 180_000,
        throwOnRequestTimeout: true,
      }),
    }),
  );
}

export function ecsClient(config: Pick<Config, 'AWS_REGION'>) {
  return ready(new ECSClient({ region: config.AWS_REGION, ...connectionOptions(undefined) }));
}

/**
 * One line of speech takes Polly well under a second. The conversation retries a failed line once and then goes on
 * in text (bot-task/conversation.ts), so the SDK makes one attempt with a short timeout: a hanging Polly costs the
 * meeting seconds of silence, not the SDK's three 10-second tries.
 */
export function pollyClient(config: Pick<Config, 'AWS_REGION'>) {
  return ready(
    new PollyClient({ region: config.AWS_REGION, maxAttempts: 1, ...connectionOptions(undefined, 5_000) }),
  );
}

/**
 * The read-only control-plane clients of the deployment preflight (admin/doctor.ts): the stack's outputs, Bedrock's
 * model catalogue, the Daily secret, the ECS service-linked role and the Fargate quota. No endpoint override of
 * ours: the SDK's own AWS_ENDPOINT_URL points them at a stand-in (moto) in tests.
 */
export function preflightClients(config: Pick<Config, 'AWS_REGION'>) {
  const options = { region: config.AWS_REGION, maxAttempts: 2, ...connectionOptions(undefined) };
  return {
    cloudFormation: new CloudFormationClient(options),
    bedrock: new BedrockClient(options),
    ses: new SESv2Client(options),
    secrets: new SecretsManagerClient(options),
    iam: new IAMClient(options),
    quotas: new ServiceQuotasClient(options),
  };
}

export type PreflightClients = ReturnType<typeof preflightClients>;
