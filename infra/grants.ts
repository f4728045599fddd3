// Who may do what: the permissions of the bot task's role and of every function's role, each role in one block. The
// constructs build the resources and say what a grant on each means (BotData.grantItems, Recordings.grantAssemble,
// BotRuntime.grantRunTask, BotPool.grantOffer, …); this module alone decides which role gets which. Besides these,
// each function's role writes its own log group and traces (service-function.ts) and consumes the queues it is an
// event source of; the task execution role is CDK's (the image, the log group, the Daily secret).
import { Stack } from 'aws-cdk-lib';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type { RouteName } from '../functions/http/route-table';
import { type ItemAction, readWriteItems } from './constructs/data';
import { grantBedrockInvoke, grantSpeechSynthesis } from './constructs/model-access';
import { allow } from './constructs/wildcard-grant';
import type { MeetingBotStack } from './stack';

/** A role's permissions, from the stack's settings, constructs and their grant helpers. */
type Grant = (role: iam.IGrantable, r: MeetingBotStack) => void;

/** A session's bookkeeping: its items, its segments and events, read and written, never deleted. */
const sessionItems: ItemAction[] = [
  'dynamodb:GetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:Query',
];

/** An authenticated route that reads: the API-key lookup, the rate-limit window (an update) and its records. */
const readRoute: ItemAction[] = ['dynamodb:GetItem', 'dynamodb:UpdateItem', 'dynamodb:Query'];

/** The bot task (the cold tasks RunTask starts and the warm pool's alike). */
const botTask: Grant = (role, { data, recordings, delivery, controlPlane, runtime, pool }) => {
  data.grantItems(role, sessionItems);
  // Its hand-over to the results stage; its events and its requests (replacement, cold start) to the control plane.
  delivery.resultsQueue.grantSendMessages(role);
  controlPlane.grantSend(role, ['control', 'botEvents']);
  grantBedrockInvoke(role, runtime.conversationModel);
  grantSpeechSynthesis(role, Stack.of(runtime));
  // It uploads its recording's pieces, nothing else of the bucket.
  recordings.grantUploadPieces(role);
  if (pool) pool.grantTakeOffers(role);
};

/** The route functions, by route name (functions/http/route-table.ts): the use case behind each, plus authentication. */
const routeGrants: Record<RouteName, Grant> = {
  join: (role, { settings, data, controlPlane, runtime, pool }) => {
    // BatchWriteItem: the session and the hold's ledger entry in one request. DeleteItem (of readWriteItems) also
    // takes a scheduled join off the list when the join queues its start itself.
    data.grantItems(role, [...readWriteItems, 'dynamodb:BatchWriteItem']);
    runtime.grantRunTask(role);
    // The join counts the cluster's tasks (one DescribeClusters, cached per instance) against the maximum.
    if (settings.maxBots > 0) runtime.grantDescribeCluster(role);
    // start_cold (the pool's delayed fallback; a scheduled join's start) and bot.scheduled.
    controlPlane.grantSend(role, ['control', 'botEvents']);
    // The wake-up of an offered session on the pool queue (core/bots/start-bot.ts).
    pool?.grantOffer(role);
  },
  leave: (role, { data, delivery, runtime }) => {
    // PutItem: the stop request's own small item, which the running bot polls. DeleteItem and the results queue: a
    // leave before join_at takes the scheduled join off the list and ends its session.
    data.grantItems(role, [
      'dynamodb:GetItem',
      'dynamodb:UpdateItem',
      'dynamodb:PutItem',
      'dynamodb:DeleteItem',
    ]);
    delivery.resultsQueue.grantSendMessages(role);
    runtime.grantStopTask(role);
  },
  status: (role, { data, recordings }) => {
    data.grantItems(role, readRoute);
    // The recording endpoint signs download addresses of the assembled file.
    recordings.grantReadFile(role);
  },
  deliveries: (role, { data }) => data.grantItems(role, readRoute),
  // The account's list entries (Query), then the sessions' summary attributes (BatchGetItem).
  list: (role, { data }) => data.grantItems(role, [...readRoute, 'dynamodb:BatchGetItem']),
  data: (role, { data, recordings, controlPlane }) => {
    // The pending-deletion entry, the tombstone and the deliveries' payloads (UpdateItem), the segments and the entry
    // (Query, then BatchWriteItem deletes): no PutItem or DeleteItem (core/adapters/dynamodb/data-deletions.ts).
    data.grantItems(role, [...readRoute, 'dynamodb:BatchWriteItem']);
    // bot.data_deleted through the bot's ordered events; the recording's objects go with the rest of the content.
    controlPlane.grantSend(role, ['botEvents']);
    recordings.grantDelete(role);
  },
  openapi: () => {},
};

/** The results stage: insights, credits and the e-mail; then the recording's assembly, a message of its own. */
const results: Grant = (role, { data, recordings, delivery, controlPlane }) => {
  data.grantItems(role, sessionItems);
  grantBedrockInvoke(role, delivery.insightsModel);
  delivery.deliveryQueue.grantSendMessages(role);
  // bot.done and session_complete through the bot's ordered events; assemble_recording on its own queue. No RunTask.
  controlPlane.grantSend(role, ['botEvents']);
  delivery.resultsQueue.grantSendMessages(role);
  recordings.grantAssemble(role);
};

/** The delivery stage: result e-mails (SES) and signed webhooks with retries. */
const deliver: Grant = (role, { settings, data, delivery }) => {
  // A live transcript's delivery is stored in a TransactWriteItems (the put, authorized as PutItem) that checks the
  // session's data is not deleted (core/adapters/dynamodb/deliveries-store.ts): ConditionCheckItem.
  data.grantItems(role, [...sessionItems, 'dynamodb:ConditionCheckItem']);
  // Retries change the message's visibility (granted with the event source); a retry due past SQS's 12-hour
  // visibility budget continues in a fresh copy sent to the delivery queue itself (functions/delivery/handler.ts;
  // found by the IAM simulation of the moto run, test/aws); a job that gives up is moved to the DLQ.
  delivery.deliveryQueue.grantSendMessages(role);
  delivery.deliveryDlq.grantSendMessages(role);
  allow(role, {
    actions: ['ses:SendEmail'],
    resources: [
      Stack.of(delivery).formatArn({
        service: 'ses',
        resource: 'identity',
        resourceName: settings.sesIdentity,
      }),
    ],
    conditions: { StringEquals: { 'ses:FromAddress': settings.mailFrom } },
  });
};

/** The control plane: cold starts, replacements, scheduled joins handed out, and the ordered events of each bot. */
const control: Grant = (role, { data, delivery, controlPlane, runtime, pool }) => {
  data.grantItems(role, sessionItems);
  // What a decision leads to: a failure or bot.replaced (bot events), a session that ends (results), webhooks; a
  // scheduled join's start on its own queue.
  controlPlane.grantSend(role, ['control', 'botEvents']);
  delivery.resultsQueue.grantSendMessages(role);
  delivery.deliveryQueue.grantSendMessages(role);
  // A lost bot's replacement and the warm pool's cold fallback are ECS tasks it starts.
  runtime.grantRunTask(role);
  if (pool) {
    // A scheduled session is offered with a wake-up; a storm grows the pool's service (core/bots/pool-growth.ts).
    pool.grantOffer(role);
    pool.grantResize(role);
  }
};

/** A stopped task leads to a replacement or cold start (control), a failure (bot events) or a hand-over (results). */
const taskStopped: Grant = (role, { data, delivery, controlPlane }) => {
  data.grantItems(role, sessionItems);
  delivery.resultsQueue.grantSendMessages(role);
  controlPlane.grantSend(role, ['control', 'botEvents']);
};

/** The heartbeat sweep (as task-stopped, for bots that stopped beating) and the retention sweep. */
const sweeper: Grant = (role, { data, recordings, delivery, controlPlane }) => {
  // The running index; the retention sweep's due entries (DeleteItem) and the content it deletes (segments:
  // BatchWriteItem; the recording's objects).
  data.grantItems(role, [...sessionItems, 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'], {
    runningIndex: true,
  });
  recordings.grantDelete(role);
  delivery.resultsQueue.grantSendMessages(role);
  controlPlane.grantSend(role, ['control', 'botEvents']);
};

/** Scheduled joins: queues the starts due soon and raises the warm pool for them (docs/scheduled-joins.md). */
const scheduler: Grant = (role, { data, controlPlane, pool }) => {
  // Query: the scheduled-join entries of the minutes ahead; DeleteItem: an entry once its start is queued.
  data.grantItems(role, ['dynamodb:Query', 'dynamodb:DeleteItem']);
  controlPlane.grantSend(role, ['control']);
  pool?.grantResize(role);
};

/**
 * Grants every role its permissions. The not-found function needs none; the warm pool's rollout role (a custom
 * resource's, not a function's) is granted where bot-pool.ts makes it.
 */
export function grantPermissions(r: MeetingBotStack): void {
  botTask(r.runtime.taskDefinition.taskRole, r);
  for (const [name, fn] of r.api.functions) routeGrants[name](fn.role, r);
  results(r.delivery.resultsFunction.role, r);
  deliver(r.delivery.deliveryFunction.role, r);
  control(r.controlPlane.function.role, r);
  taskStopped(r.operations.taskStopped.role, r);
  sweeper(r.operations.sweeper.role, r);
  scheduler(r.operations.scheduler.role, r);
}
