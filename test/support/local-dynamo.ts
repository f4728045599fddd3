// dynalite in its worker (in memory) and a raw DynamoDB client for it: for tests of the local DynamoDB itself.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { type LocalDynamo, startDynalite } from '../../local/dynalite';

export interface LocalDynamoClient {
  dynamo: LocalDynamo;
  client: DynamoDBClient;
  close(): Promise<void>;
}

export async function localDynamoClient(): Promise<LocalDynamoClient> {
  const dynamo = await startDynalite();
  const client = new DynamoDBClient({
    endpoint: dynamo.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'x', secretAccessKey: 'x' },
  });
  return {
    dynamo,
    client,
    async close() {
      client.destroy();
      await dynamo.close();
    },
  };
}
