// The control plane: its two queues and the function that consumes both. The control queue (standard, so the warm
// pool's cold-start fallback can be delayed) carries decisions about bot tasks; the bot-events queue (FIFO, one
// message group per bot) carries the events of each bot's life in the order they happened, so the function numbers
// them and queues their webhooks in that order. Neither rides the results queue (core/control/).
import { Duration } from 'aws-cdk-lib';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { MeetingBotSettings } from '../settings';
import type { BotData } from './data';
import { type Delivery, queue } from './delivery';
import { ServiceFunction } from './service-function';

export const controlEntry = 'functions/control/handler.ts';
/** Receives of a control message before it is dead-lettered (a RunTask throttled past its retry budget, a crash). */
export const controlMaxReceiveCount = 5;

export interface ControlPlaneProps {
  settings: MeetingBotSettings;
  data: BotData;
  delivery: Delivery;
}

/** Control function instances the control queue runs at once (the least SQS event sources allow). */
const controlConcurrency = 2;

export class ControlPlane extends Construct {
  readonly controlQueue: sqs.Queue;
  readonly controlDlq: sqs.Queue;
  readonly botEventsQueue: sqs.Queue;
  readonly botEventsDlq: sqs.Queue;
  readonly function: ServiceFunction;

  constructor(scope: Construct, id: string, props: ControlPlaneProps) {
    super(scope, id);
    const { settings, data, delivery } = props;
    // A cold start's RunTask retries within RUN_TASK_RETRY_BUDGET_MS; a batch of them fits with room to spare.
    const timeout = Duration.seconds(60);
    const visibilityTimeout = Duration.seconds(timeout.toSeconds() * 6);

    this.controlDlq = queue(this, 'ControlDlq');
    this.controlQueue = queue(this, 'ControlQueue', {
      visibilityTimeout,
      deadLetterQueue: { queue: this.controlDlq, maxReceiveCount: controlMaxReceiveCount },
    });
    // A FIFO queue's dead-letter queue must be FIFO too. Throughput is per message group (each bot its own), not
    // the queue's 300 messages a second.
    const fifo = {
      fifo: true,
      deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
      fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
    };
    this.botEventsDlq = queue(this, 'BotEventsDlq', fifo);
    this.botEventsQueue = queue(this, 'BotEventsQueue', {
      ...fifo,
      visibilityTimeout,
      deadLetterQueue: { queue: this.botEventsDlq, maxReceiveCount: controlMaxReceiveCount },
    });

    this.function = new ServiceFunction(this, 'Control', {
      entry: controlEntry,
      settings,
      description: 'Control plane: cold starts, replacements, and the ordered events of each bot',
      timeout,
      environment: {
        TABLE_NAME: data.table.tableName,
        CONTROL_QUEUE_URL: this.controlQueue.queueUrl,
        BOT_EVENTS_QUEUE_URL: this.botEventsQueue.queueUrl,
        // A lost bot asked to leave ends as force_leave: its hand-over goes to the results stage.
        RESULTS_QUEUE_URL: delivery.resultsQueue.queueUrl,
        DELIVERY_QUEUE_URL: delivery.deliveryQueue.queueUrl,
      },
    });
    for (const q of [this.controlQueue, this.botEventsQueue]) {
      this.function.function.addEventSource(
        new SqsEventSource(q, {
          batchSize: 10,
          reportBatchItemFailures: true,
          // Cold starts and replacements: at most 2 instances at once, each pacing RunTask at 10 calls/s
          // (RUN_TASK_CALLS_PER_SECOND below), so together they keep within ECS's 20/s per account and region.
          ...(q === this.controlQueue && { maxConcurrency: controlConcurrency }),
        }),
      );
    }
    this.function.function.addEnvironment('RUN_TASK_CALLS_PER_SECOND', String(20 / controlConcurrency));
    data.grantItems(this.function.role, [
      'dynamodb:GetItem',
      'dynamodb:PutItem',
      'dynamodb:UpdateItem',
      'dynamodb:Query',
    ]);
    // What a decision leads to: a failure or bot.replaced (bot events), a session that ends (results), webhooks.
    this.botEventsQueue.grantSendMessages(this.function.role);
    delivery.resultsQueue.grantSendMessages(this.function.role);
    delivery.deliveryQueue.grantSendMessages(this.function.role);
  }

  /** What a bot's process, the join and the operations functions send: decisions and events, never results. */
  grantSend(
    grantee: Parameters<sqs.Queue['grantSendMessages']>[0],
    which: ('control' | 'botEvents')[],
  ): void {
    if (which.includes('control')) this.controlQueue.grantSendMessages(grantee);
    if (which.includes('botEvents')) this.botEventsQueue.grantSendMessages(grantee);
  }

  /** The environment a sender needs for `which`. */
  environment(which: ('control' | 'botEvents')[]): Record<string, string> {
    return {
      ...(which.includes('control') && { CONTROL_QUEUE_URL: this.controlQueue.queueUrl }),
      ...(which.includes('botEvents') && { BOT_EVENTS_QUEUE_URL: this.botEventsQueue.queueUrl }),
    };
  }
}
