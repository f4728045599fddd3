// Results and delivery: the results queue (bot-task → insights) and the delivery queue (one job per channel → SES
// e-mail and webhooks), each with a DLQ, and the Lambda consumers that report partial batch failures.
import { Duration } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import {
  deadLetterRetentionSeconds,
  type EventSourceLimits,
  eventSourceLimits,
  functionLimits,
  type QueueLimits,
  queueLimits,
} from '../limits';
import type { MeetingBotSettings } from '../settings';
import type { BotData } from './data';
import { type BedrockModel, bedrockModel } from './model-access';
import { ServiceFunction } from './service-function';

/** SSE with SQS-owned keys, TLS-only access; 14 days so a parked message outlives a long weekend. */
export function queue(scope: Construct, id: string, props: Partial<sqs.QueueProps> = {}): sqs.Queue {
  return new sqs.Queue(scope, id, {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.seconds(deadLetterRetentionSeconds),
    ...props,
  });
}

/**
 * A queue a function consumes, with its DLQ: its visibility, redrive, retention and message size from
 * infra/limits.ts (`props` adds the rest, such as FIFO).
 */
export function consumedQueue(
  scope: Construct,
  id: string,
  limits: QueueLimits & { maxReceiveCount: number },
  dlq: sqs.Queue,
  props: Partial<sqs.QueueProps> = {},
): sqs.Queue {
  return queue(scope, id, {
    ...props,
    visibilityTimeout: Duration.seconds(limits.visibilityTimeoutSeconds),
    retentionPeriod: Duration.seconds(limits.retentionSeconds),
    maxMessageSizeBytes: limits.maxMessageBytes,
    deadLetterQueue: { queue: dlq, maxReceiveCount: limits.maxReceiveCount },
  });
}

/** A queue-driven function's event source as infra/limits.ts declares it, reporting batch item failures. */
export function eventSourceOf(q: sqs.IQueue, limits: EventSourceLimits): SqsEventSource {
  return new SqsEventSource(q, {
    batchSize: limits.batchSize,
    reportBatchItemFailures: true,
    ...(limits.maxBatchingWindowSeconds > 0 && {
      maxBatchingWindow: Duration.seconds(limits.maxBatchingWindowSeconds),
    }),
    ...(limits.maxConcurrency !== undefined && { maxConcurrency: limits.maxConcurrency }),
  });
}

export class Delivery extends Construct {
  readonly resultsQueue: sqs.Queue;
  readonly resultsDlq: sqs.Queue;
  readonly deliveryQueue: sqs.Queue;
  readonly deliveryDlq: sqs.Queue;
  readonly resultsFunction: ServiceFunction;
  /** The model that extracts insights (INSIGHTS_MODEL_ID). */
  readonly insightsModel: BedrockModel;
  readonly deliveryFunction: ServiceFunction;

  constructor(
    scope: Construct,
    id: string,
    { settings, data }: { settings: MeetingBotSettings; data: BotData },
  ) {
    super(scope, id);
    this.insightsModel = bedrockModel(this, settings.insightsModelId, 'insights');

    // Every number here is infra/limits.ts's: the local stack enforces the same ones.
    this.resultsDlq = queue(this, 'ResultsDlq');
    this.resultsQueue = consumedQueue(this, 'ResultsQueue', queueLimits.results, this.resultsDlq);
    this.deliveryDlq = queue(this, 'DeliveryDlq');
    this.deliveryQueue = consumedQueue(this, 'DeliveryQueue', queueLimits.delivery, this.deliveryDlq);

    this.resultsFunction = new ServiceFunction(this, 'Results', {
      entry: 'functions/results/handler.ts',
      settings,
      description: 'Results queue consumer: transcript, insights, status completed, credits, the e-mail',
      limits: functionLimits.results,
      environment: {
        TABLE_NAME: data.table.tableName,
        DELIVERY_QUEUE_URL: this.deliveryQueue.queueUrl,
        INSIGHTS_MODEL_ID: this.insightsModel.id,
      },
    });
    this.resultsFunction.function.addEventSource(eventSourceOf(this.resultsQueue, eventSourceLimits.results));

    this.deliveryFunction = new ServiceFunction(this, 'Deliver', {
      entry: 'functions/delivery/handler.ts',
      settings,
      description: 'Delivery queue consumer: result e-mails (SES) and signed webhooks with retries',
      limits: functionLimits.delivery,
      environment: {
        TABLE_NAME: data.table.tableName,
        DELIVERY_QUEUE_URL: this.deliveryQueue.queueUrl,
        DELIVERY_DLQ_URL: this.deliveryDlq.queueUrl,
        SES_FROM_ADDRESS: `Meeting Bot <${settings.mailFrom}>`,
      },
    });
    this.deliveryFunction.function.addEventSource(
      eventSourceOf(this.deliveryQueue, eventSourceLimits.delivery),
    );
  }
}
