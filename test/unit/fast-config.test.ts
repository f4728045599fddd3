// fastConfig: every client we build has its configuration in V8's fast properties, where the SDK's per-request copies
// of it (`{ ...config }`, three a request) are cheap, and nothing about the configuration itself changes. V8's own
// answer is read through its natives syntax (a flag set for this test's process only).
import { setFlagsFromString } from 'node:v8';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { describe, expect, it } from 'vitest';
import {
  bedrockClient,
  dynamoDocumentClient,
  ecsClient,
  fastConfig,
  pollyClient,
  s3Client,
  sesClient,
  sqsClient,
} from '../../core/adapters/aws-clients';

setFlagsFromString('--allow-natives-syntax');
const hasFastProperties = new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean;

const config = {
  AWS_REGION: 'us-east-1',
  DYNAMODB_ENDPOINT: 'http://127.0.0.1:1',
  SQS_ENDPOINT: 'http://127.0.0.1:1',
  SES_ENDPOINT: 'http://127.0.0.1:1',
  S3_ENDPOINT: 'http://127.0.0.1:1',
};

describe('fastConfig', () => {
  it('is needed: the SDK leaves a client’s configuration in dictionary mode', () => {
    expect(hasFastProperties(new DynamoDBClient({ region: 'us-east-1' }).config)).toBe(false);
  });

  it('every client we build has its configuration in fast properties', () => {
    const clients = {
      dynamodb: dynamoDocumentClient(config).client,
      sqs: sqsClient(config),
      ses: sesClient(config),
      s3: s3Client(config),
      bedrock: bedrockClient(config),
      ecs: ecsClient(config),
      polly: pollyClient(config),
    };
    for (const [name, client] of Object.entries(clients))
      expect({ name, fast: hasFastProperties(client.config) }).toEqual({ name, fast: true });
  });

  it('changes nothing in the configuration: the same fields, values and accessors', () => {
    const client = new DynamoDBClient({ region: 'us-east-1', maxAttempts: 3 });
    const before = Object.getOwnPropertyDescriptors(client.config);
    fastConfig(client);
    expect(hasFastProperties(client.config)).toBe(true);
    expect(Object.getOwnPropertyDescriptors(client.config)).toEqual(before);
    expect(Object.getPrototypeOf(client.config)).toBe(Object.prototype);
    expect(typeof Object.getOwnPropertyDescriptor(client.config, 'credentials')?.get).toBe('function');
  });
});
