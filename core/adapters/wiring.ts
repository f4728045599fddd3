// The composition root: every adapter the service runs on, built from configuration, each at most once per process.
// The Lambda handlers, the bot-task, the admin CLI and the local stack all wire through here, so AWS and the local
// stand-ins differ only in the endpoints of the configuration (STYLE.md: one place builds SDK clients).
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Config } from '../config';
import { LocalConversationEngine } from '../conversation/local-engine';
import { buildServiceDeps, buildStores, type ServiceDeps, type Stores } from '../deps';
import { LocalInsightsEngine } from '../insights/local-engine';
import type { Logger } from '../log';
import type { ConversationEngine } from '../ports/conversation-engine';
import type { InsightsEngine } from '../ports/insights-engine';
import type { Mailer } from '../ports/mailer';
import type { MessageQueue } from '../ports/queue';
import type { RateLimiter } from '../ports/rate-limiter';
import type { Synthesizer } from '../ports/synthesizer';
import type { TaskRunner } from '../ports/task-runner';
import {
  bedrockClient,
  dynamoDocumentClient,
  ecsClient,
  pollyClient,
  sesClient,
  sqsClient,
} from './aws-clients';
import { BedrockConversationEngine } from './bedrock/conversation-engine';
import { BedrockInsightsEngine } from './bedrock/insights-engine';
import type { TableHandle } from './dynamodb/table';
import { EcsTaskRunner } from './ecs/ecs-task-runner';
import { displayUrl, openAIClient } from './openai/client';
import { OpenAIConversationEngine } from './openai/conversation-engine';
import { OpenAIInsightsEngine } from './openai/insights-engine';
import { PollySynthesizer } from './polly/polly-synthesizer';
import { SesMailer } from './ses/ses-mailer';
import { SqsQueue } from './sqs/sqs-queue';

/** The SQS client and queue URLs the delivery consumer moves its own messages with (retries, DLQ). */
export interface DeliveryQueues {
  sqs: SQSClient;
  queueUrl: string;
  dlqUrl: string;
}

export interface Adapters {
  readonly config: Config;
  readonly log: Logger;
  readonly table: TableHandle;
  readonly stores: Stores;
  readonly sqs: SQSClient;
  /** Where bot-tasks (and the failure paths) hand a session's results. */
  readonly resultsQueue: MessageQueue;
  /** One job per channel of a finished session. */
  readonly deliveryQueue: MessageQueue;
  readonly deliveryQueues: DeliveryQueues;
  readonly mailer: Mailer;
  /** Bedrock with INSIGHTS_MODEL_ID, else the OpenAI-compatible server of LLM_BASE_URL, else the local rules. */
  readonly insights: InsightsEngine;
  /** Bedrock with CONVERSATION_MODEL_ID, else the OpenAI-compatible server of LLM_BASE_URL, else the local engine. */
  readonly conversation: ConversationEngine;
  readonly synthesizer: Synthesizer;
  /** ECS RunTask/StopTask on the cluster of BOT_CLUSTER_ARN (the deployed join and leave functions). */
  readonly ecsRunner: TaskRunner;
  /** What the HTTP use cases need; the runner is ECS unless another is given (the local stack's child processes). */
  serviceDeps(parts?: { runner?: TaskRunner; rateLimiter?: RateLimiter; log?: Logger }): ServiceDeps;
  /** Closes the SDK clients built so far (sockets kept alive would hold a CLI or a test open). */
  destroy(): void;
}

export type LanguageEngine = 'conversation' | 'insights';

/** Which implementation a language engine gets: the one decision both building and describing it follow. */
export type EngineChoice =
  | { vendor: 'bedrock'; model: string }
  | { vendor: 'openai'; model: string; baseUrl: string }
  | { vendor: 'local' };

/** Bedrock where its model id is set, else the OpenAI-compatible server where LLM_BASE_URL is set, else local. */
export function engineChoice(config: Config, engine: LanguageEngine): EngineChoice {
  const bedrockModel = engine === 'conversation' ? config.CONVERSATION_MODEL_ID : config.INSIGHTS_MODEL_ID;
  if (bedrockModel) return { vendor: 'bedrock', model: bedrockModel };
  if (config.LLM_BASE_URL) return { vendor: 'openai', model: config.LLM_MODEL, baseUrl: config.LLM_BASE_URL };
  return { vendor: 'local' };
}

/** One line saying which engine runs (for the start-up banner and logs; no keys, no URL credentials). */
export function describeEngine(config: Config, engine: LanguageEngine): string {
  const choice = engineChoice(config, engine);
  switch (choice.vendor) {
    case 'bedrock':
      return `Amazon Bedrock (${choice.model})`;
    case 'openai':
      return `OpenAI-compatible (${choice.model} at ${displayUrl(choice.baseUrl)})`;
    case 'local':
      return engine === 'conversation'
        ? "local rules (asks the prompt's questions; no model)"
        : 'local rules (no model)';
  }
}

/** Builds adapters lazily: a Lambda that never mails never builds an SES client. */
export function wireAdapters(config: Config, log: Logger): Adapters {
  const built = new Map<string, unknown>();
  const destroyers: (() => void)[] = [];
  const once = <T>(key: string, make: () => T): T => {
    if (!built.has(key)) built.set(key, make());
    return built.get(key) as T;
  };
  const client = <T extends { destroy(): void }>(key: string, make: () => T): T =>
    once(key, () => {
      const c = make();
      destroyers.push(() => c.destroy());
      return c;
    });

  const openai = () =>
    once('openai', () => openAIClient({ baseUrl: config.LLM_BASE_URL ?? '', apiKey: config.LLM_API_KEY }));

  const adapters: Adapters = {
    config,
    log,
    get table() {
      return once<TableHandle>('table', () => ({
        doc: client('dynamodb', () => dynamoDocumentClient(config)),
        tableName: config.TABLE_NAME,
      }));
    },
    get stores() {
      return once('stores', () => buildStores(adapters.table, config));
    },
    get sqs() {
      return client('sqs', () => sqsClient(config));
    },
    get resultsQueue() {
      return once('resultsQueue', () => new SqsQueue(adapters.sqs, config.RESULTS_QUEUE_URL));
    },
    get deliveryQueue() {
      return once('deliveryQueue', () => new SqsQueue(adapters.sqs, config.DELIVERY_QUEUE_URL));
    },
    get deliveryQueues() {
      return { sqs: adapters.sqs, queueUrl: config.DELIVERY_QUEUE_URL, dlqUrl: config.DELIVERY_DLQ_URL };
    },
    get mailer() {
      return once(
        'mailer',
        () =>
          new SesMailer(
            client('ses', () => sesClient(config)),
            config.SES_FROM_ADDRESS,
          ),
      );
    },
    get insights() {
      return once<InsightsEngine>('insights', () => {
        const choice = engineChoice(config, 'insights');
        switch (choice.vendor) {
          case 'bedrock':
            return new BedrockInsightsEngine(
              client('bedrock', () => bedrockClient(config)),
              { modelId: choice.model, log },
            );
          case 'openai':
            return new OpenAIInsightsEngine(openai(), {
              model: choice.model,
              chunkChars: config.LLM_INSIGHTS_CHUNK_CHARS,
              deadlineMs: config.LLM_INSIGHTS_DEADLINE_MS,
              log,
            });
          case 'local':
            return new LocalInsightsEngine();
        }
      });
    },
    get conversation() {
      return once<ConversationEngine>('conversation', () => {
        const choice = engineChoice(config, 'conversation');
        const turnTimeoutMs = config.CONVERSATION_TURN_TIMEOUT_MS;
        switch (choice.vendor) {
          case 'bedrock':
            return new BedrockConversationEngine(
              client('bedrock', () => bedrockClient(config)),
              { modelId: choice.model, turnTimeoutMs, log },
            );
          case 'openai':
            return new OpenAIConversationEngine(openai(), { model: choice.model, turnTimeoutMs, log });
          case 'local':
            return new LocalConversationEngine();
        }
      });
    },
    get synthesizer() {
      return once('synthesizer', () => new PollySynthesizer(client('polly', () => pollyClient(config))));
    },
    get ecsRunner() {
      return once(
        'ecsRunner',
        () =>
          new EcsTaskRunner(
            client('ecs', () => ecsClient(config)),
            {
              cluster: config.BOT_CLUSTER_ARN,
              taskDefinition: config.BOT_TASK_DEFINITION_ARN,
              containerName: config.BOT_CONTAINER_NAME,
              subnets: config.BOT_SUBNET_IDS,
              securityGroups: config.BOT_SECURITY_GROUP_IDS,
              assignPublicIp: config.BOT_ASSIGN_PUBLIC_IP,
              capacityProviders: config.BOT_CAPACITY_PROVIDERS,
            },
          ),
      );
    },
    serviceDeps(parts = {}) {
      return buildServiceDeps(adapters.table, config, {
        stores: adapters.stores,
        runner: parts.runner ?? adapters.ecsRunner,
        log: parts.log ?? log,
        rateLimiter: parts.rateLimiter,
      });
    },
    destroy() {
      for (const d of destroyers.splice(0)) d();
      built.clear();
    },
  };
  return adapters;
}
