// The one stack of the service, composed of small constructs named for what they are.
import { CfnOutput, Stack, type StackProps, Tags } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { Api } from './constructs/api';
import { BotPool } from './constructs/bot-pool';
import { BotRuntime } from './constructs/bot-runtime';
import { ControlPlane } from './constructs/control-plane';
import { Dashboard } from './constructs/dashboard';
import { BotData } from './constructs/data';
import { Delivery } from './constructs/delivery';
import { addEnvironment } from './constructs/environment';
import { Operations } from './constructs/operations';
import { Recordings } from './constructs/recordings';
import { grantPermissions } from './grants';
import { applyNagSuppressions } from './nag-suppressions';
import { doctorOutputKeys } from './outputs';
import type { MeetingBotSettings } from './settings';

export interface MeetingBotStackProps extends StackProps {
  settings: MeetingBotSettings;
}

export { stackName } from './outputs';

export class MeetingBotStack extends Stack {
  readonly data: BotData;
  readonly recordings: Recordings;
  readonly delivery: Delivery;
  readonly controlPlane: ControlPlane;
  readonly runtime: BotRuntime;
  /** The warm pool; none when `botPoolSize` is 0. */
  readonly pool?: BotPool;
  readonly api: Api;
  readonly operations: Operations;
  readonly dashboard: Dashboard;
  readonly settings: MeetingBotSettings;

  constructor(scope: Construct, id: string, props: MeetingBotStackProps) {
    super(scope, id, {
      description: `Meeting Bot Service (${props.settings.stage}): API, bot runtime, delivery, operations`,
      ...props,
    });
    const { settings } = props;
    this.settings = settings;
    Tags.of(this).add('service', 'meeting-bot');
    Tags.of(this).add('stage', settings.stage);

    this.data = new BotData(this, 'Data', { settings });
    this.recordings = new Recordings(this, 'Recordings', { settings });
    this.delivery = new Delivery(this, 'Delivery', { settings, data: this.data });
    this.controlPlane = new ControlPlane(this, 'ControlPlane', {
      settings,
      data: this.data,
      delivery: this.delivery,
    });
    this.runtime = new BotRuntime(this, 'BotRuntime', {
      settings,
      data: this.data,
      resultsQueue: this.delivery.resultsQueue,
      controlPlane: this.controlPlane,
    });
    // A lost bot's replacement and the warm pool's cold fallback are ECS tasks the control function starts.
    const control = this.controlPlane.function;
    control.addEnvironment(this.runtime.runnerEnvironment());
    // The results stage hands bot.done and session_complete to the bot's ordered events.
    const results = this.delivery.resultsFunction;
    results.addEnvironment(this.controlPlane.environment(['botEvents']));
    // A recorded session's second step, the recording's assembly, is a message of its own on the results queue.
    results.addEnvironment({ RESULTS_QUEUE_URL: this.delivery.resultsQueue.queueUrl });
    // Recordings: the bot uploads pieces, the results stage assembles them, the status function signs downloads.
    const recordingsEnv = this.recordings.environment();
    addEnvironment(this.runtime.container, recordingsEnv);
    results.addEnvironment(recordingsEnv);
    this.api = new Api(this, 'Api', { settings, data: this.data, runtime: this.runtime });
    this.api.functions.get('status')?.addEnvironment(recordingsEnv);
    const join = this.api.functions.get('join');
    if (join && settings.maxBots > 0) {
      // The join counts the cluster's tasks (one DescribeClusters, cached per instance) against the maximum.
      join.addEnvironment({ MAX_BOTS: String(settings.maxBots) });
    }
    // The data deletion tells the bot's webhook (bot.data_deleted) through the bot's ordered events.
    const dataFn = this.api.functions.get('data');
    if (dataFn) {
      dataFn.addEnvironment(this.controlPlane.environment(['botEvents']));
      // It deletes the recording's objects with the rest of the meeting's content.
      dataFn.addEnvironment(recordingsEnv);
    }
    if (settings.botPoolSize > 0) {
      this.pool = new BotPool(this, 'BotPool', { settings, runtime: this.runtime });
      if (join) this.pool.wireJoin(join, this.controlPlane.controlQueue);
      this.pool.wireControl(control);
    } else {
      join?.addEnvironment({ BOT_POOL_SIZE: '0' });
    }
    this.operations = new Operations(this, 'Operations', {
      settings,
      data: this.data,
      runtime: this.runtime,
      delivery: this.delivery,
      controlPlane: this.controlPlane,
      api: this.api,
      pool: this.pool,
    });
    // The retention sweep deletes recordings with the rest of a meeting's content.
    this.operations.sweeper.addEnvironment(recordingsEnv);
    // Every role's permissions, each in one place.
    grantPermissions(this);

    this.dashboard = new Dashboard(this, 'Dashboard', {
      settings,
      api: this.api,
      delivery: this.delivery,
      controlPlane: this.controlPlane,
      operations: this.operations,
      pool: this.pool,
    });

    const output = (key: string, value: string, description?: string) =>
      new CfnOutput(this, key, { value, description });
    const cli = (what: string, command: string) => `${what} for the admin CLI (${command})`;
    output('ApiUrl', this.api.stage.url, 'Base URL of the API');
    output('TableName', this.data.table.tableName, cli('TABLE_NAME', 'npm run admin -- … --aws'));
    const redrive = 'deliveries redrive --aws';
    output(
      'DeliveryQueueUrl',
      this.delivery.deliveryQueue.queueUrl,
      cli('DELIVERY_QUEUE_URL of QUEUE_URLS', redrive),
    );
    output(
      'DeliveryDlqUrl',
      this.delivery.deliveryDlq.queueUrl,
      cli('DELIVERY_DLQ_URL of QUEUE_URLS', redrive),
    );
    output(
      'RecordingsBucketName',
      this.recordings.bucket.bucketName,
      cli('RECORDINGS_BUCKET', 'data delete --aws'),
    );
    output('AlarmTopicArn', this.operations.alarmTopic.topicArn);
    output('BotClusterName', this.runtime.cluster.clusterName);
    if (this.pool) {
      const runbook = 'docs/operations.md "Warm pool empty"';
      output('BotPoolServiceName', this.pool.service.serviceName, `The warm pool's ECS service (${runbook})`);
    }
    // What `npm run admin -- doctor --aws` checks a deployed stage against (admin/doctor.ts, docs/deploy.md).
    const keys = doctorOutputKeys;
    output(
      keys.conversationModel,
      this.runtime.conversationModel.id,
      'CONVERSATION_MODEL_ID of the bot task',
    );
    output(keys.insightsModel, this.delivery.insightsModel.id, 'INSIGHTS_MODEL_ID of the results function');
    output(keys.sesIdentity, settings.sesIdentity, 'The SES identity results are sent as');
    output(keys.dailySecret, settings.dailyApiKeySecretName, 'Secrets Manager secret of the Daily API key');
    output(keys.poolMax, String(settings.botPoolSize > 0 ? settings.botPoolMax : 0), 'Most warm pool tasks');
    output(keys.taskCpu, String(settings.botTaskCpu), 'Fargate CPU units of a bot task');

    applyNagSuppressions(this);
  }
}
