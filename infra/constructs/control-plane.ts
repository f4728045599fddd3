// The control plane: its two queues and the function that consumes both. The control queue (standard, so the warm
// pool's cold-start fallback can be delayed) carries decisions about bot tasks; the bot-events queue (FIFO, one
// message group per bot) carries the events of each bot's life in the order they happened, so the function numbers
// them and queues their webhooks in that order. Neither rides the results queue (core/control/).
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { eventSourceLimits, functionLimits, queueLimits } from '../limits';
import type { MeetingBotSettings } from '../settings';
import type { BotData } from './data';
import { consumedQueue, type Delivery, eventSourceOf, queue } from './delivery';
import { ServiceFunction } from './service-function';

export class ControlPlane extends Construct {
  readonly controlQueue: sqs.Queue;
  readonly controlDlq: sqs.Queue;
  readonly botEventsQueue: sqs.Queue;
  readonly botEventsDlq: sqs.Queue;
  readonly function: ServiceFunction;

  constructor(
    scope: Construct,
    id: string,
    { settings, data, delivery }: { settings: MeetingBotSettings; data: BotData; delivery: Delivery },
  ) {
    super(scope, id);
    // Every number here is infra/limits.ts's: the local stack enforces the same ones.

    this.controlDlq = queue(this, 'ControlDlq');
    this.controlQueue = consumedQueue(this, 'ControlQueue', queueLimits.control, this.controlDlq);
    // A FIFO queue's dead-letter queue must be FIFO too. Throughput is per message group (each bot its own), not
    // the queue's 300 messages a second.
    const fifo = {
      fifo: true,
      deduplicationScope: sqs.DeduplicationScope.MESSAGE_GROUP,
      fifoThroughputLimit: sqs.FifoThroughputLimit.PER_MESSAGE_GROUP_ID,
    };
    this.botEventsDlq = queue(this, 'BotEventsDlq', fifo);
    this.botEventsQueue = consumedQueue(
      this,
      'BotEventsQueue',
      queueLimits.botEvents,
      this.botEventsDlq,
      fifo,
    );

    this.function = new ServiceFunction(this, 'Control', {
      entry: 'functions/control/handler.ts',
      settings,
      description: 'Control plane: cold starts, replacements, and the ordered events of each bot',
      limits: functionLimits.control,
      environment: {
        TABLE_NAME: data.table.tableName,
        CONTROL_QUEUE_URL: this.controlQueue.queueUrl,
        BOT_EVENTS_QUEUE_URL: this.botEventsQueue.queueUrl,
        // A lost bot asked to leave ends as force_leave: its hand-over goes to the results stage.
        RESULTS_QUEUE_URL: delivery.resultsQueue.queueUrl,
        DELIVERY_QUEUE_URL: delivery.deliveryQueue.queueUrl,
      },
    });
    // Cold starts and replacements: at most `controlConcurrency` instances at once, each pacing RunTask at its share
    // (functions/control/handler.ts), so together they keep within ECS's 20/s per account and region.
    this.function.function.addEventSource(eventSourceOf(this.controlQueue, eventSourceLimits.control));
    this.function.function.addEventSource(eventSourceOf(this.botEventsQueue, eventSourceLimits.botEvents));
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
