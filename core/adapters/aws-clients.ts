// The one place that builds AWS SDK clients from configuration; local and cloud differ only in the endpoints here.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Config } from '../config';

/** Endpoint overrides point at local stand-ins, which accept any credentials; AWS uses the default chain. */
const localCredentials = { accessKeyId: 'local', secretAccessKey: 'local' };

export function dynamoDocumentClient(config: Pick<Config, 'AWS_REGION' | 'DYNAMODB_ENDPOINT'>) {
  const client = new DynamoDBClient({
    region: config.AWS_REGION,
    ...(config.DYNAMODB_ENDPOINT
      ? { endpoint: config.DYNAMODB_ENDPOINT, credentials: localCredentials }
      : {}),
    maxAttempts: 3,
  });
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
}

export function sqsClient(config: Pick<Config, 'AWS_REGION' | 'SQS_ENDPOINT'>) {
  return new SQSClient({
    region: config.AWS_REGION,
    ...(config.SQS_ENDPOINT ? { endpoint: config.SQS_ENDPOINT, credentials: localCredentials } : {}),
  });
}
