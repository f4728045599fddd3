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
  delivery: LocalQueue;
  deliveryDlq: LocalQueue;
  stop(): Promise<void>;
}

export async function startLocalQueues(): Promise<LocalQueues> {
  const server = await startFauxqs({ port: 0, logger: false, host: '127.0.0.1' } as Parameters<
    typeof startFauxqs
  >[0]);
  const withDlq = (name: string, visibilitySeconds: number, maxReceiveCount: number) => {
    const dlq = server.createQueue(`${name}-dlq`);
    const queue = server.createQueue(name, {
      attributes: {
        VisibilityTimeout: String(visibilitySeconds),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: dlq.queueArn,
          maxReceiveCount: String(maxReceiveCount),
        }),
      },
    });
    return [
      { url: queue.queueUrl, arn: queue.queueArn },
      { url: dlq.queueUrl, arn: dlq.queueArn },
    ] as const;
  };
  const [results, resultsDlq] = withDlq('results', 10, 5);
  // Above the 15 delivery attempts, so only a message that keeps crashing its handler lands here by redrive.
  const [delivery, deliveryDlq] = withDlq('delivery', 30, 25);
  return { endpoint: server.address, results, resultsDlq, delivery, deliveryDlq, stop: () => server.stop() };
}
