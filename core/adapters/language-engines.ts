// The language engines (conversation, insights) and the voice, chosen from configuration and built once on the
// process's adapters (wiring.ts). Only the processes that converse or analyse import this module: the bot-task, the
// results function and the local stack; the HTTP functions' bundles stay free of the model SDKs.
import type { Config } from '../config';
import { LocalConversationEngine } from '../engines/rules/conversation/local-engine';
import { LocalInsightsEngine } from '../engines/rules/insights/local-engine';
import type { ConversationEngine } from '../ports/conversation-engine';
import type { InsightsEngine } from '../ports/insights-engine';
import type { Synthesizer } from '../ports/synthesizer';
import { bedrockClient, pollyClient } from './aws-clients';
import { BedrockConversationEngine } from './bedrock/conversation-engine';
import { BedrockInsightsEngine } from './bedrock/insights-engine';
import { displayUrl, openAIClient } from './openai/client';
import { OpenAIConversationEngine } from './openai/conversation-engine';
import { OpenAIInsightsEngine } from './openai/insights-engine';
import { PollySynthesizer } from './polly/polly-synthesizer';
import type { Adapters } from './wiring';

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

export interface LanguageEngines {
  /** Bedrock with INSIGHTS_MODEL_ID, else the OpenAI-compatible server of LLM_BASE_URL, else the local rules. */
  readonly insights: InsightsEngine;
  /** Bedrock with CONVERSATION_MODEL_ID, else the OpenAI-compatible server of LLM_BASE_URL, else the local engine. */
  readonly conversation: ConversationEngine;
  readonly synthesizer: Synthesizer;
}

/** The engines of a process, built lazily on its adapters (closed with them by `adapters.destroy()`). */
export function languageEngines(adapters: Adapters): LanguageEngines {
  const { config, log } = adapters;
  const openai = () =>
    adapters.own('openai', () =>
      openAIClient({ baseUrl: config.LLM_BASE_URL ?? '', apiKey: config.LLM_API_KEY }),
    );
  return {
    get insights() {
      return adapters.own<InsightsEngine>('insights', () => {
        const choice = engineChoice(config, 'insights');
        switch (choice.vendor) {
          case 'bedrock':
            return new BedrockInsightsEngine(
              adapters.own('bedrock', () => bedrockClient(config)),
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
      return adapters.own<ConversationEngine>('conversation', () => {
        const choice = engineChoice(config, 'conversation');
        const turnTimeoutMs = config.CONVERSATION_TURN_TIMEOUT_MS;
        switch (choice.vendor) {
          case 'bedrock':
            return new BedrockConversationEngine(
              adapters.own('bedrock', () => bedrockClient(config)),
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
      return adapters.own(
        'synthesizer',
        () => new PollySynthesizer(adapters.own('polly', () => pollyClient(config))),
      );
    },
  };
}
