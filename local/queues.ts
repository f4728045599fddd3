// Local SQS: fauxqs in-process, with the queues and dead-letter queues the AWS stack defines.
import { startFauxqs } from 'fauxqs';

export interface LocalQueue {
  url: string;
  arn: string;
}

export interface LocalQueues {
  endpoint: string;
  results: LocalQueue;
  resultsDlq: LocalQueue;
  stop(): Promise<void>;
}

export async function startLocalQueues(): Promise<LocalQueues> {
  const server = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' } as Parameters<
    typeof startFauxqs
  >[0]);
  const dlq = server.createQueue('results-dlq');
  const results = server.createQueue('results', {
    attributes: {
      VisibilityTimeout: '10',
      RedrivePolicy: JSON.stringify({ deadLetterTargetArn: dlq.queueArn, maxReceiveCount: '5' }),
    },
  });
  return {
    endpoint: server.address,
    results: { url: results.queueUrl, arn: results.queueArn },
    resultsDlq: { url: dlq.queueUrl, arn: dlq.queueArn },
    stop: () => server.stop(),
  };
}
