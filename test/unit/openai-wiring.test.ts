// Engine selection in the composition root: Bedrock where its model id is set, else the OpenAI-compatible server of
// LLM_BASE_URL, else the local engines; and the one line per engine `npm start` prints.
import { describe, expect, it } from 'vitest';
import { BedrockConversationEngine } from '../../core/adapters/bedrock/conversation-engine';
import { BedrockInsightsEngine } from '../../core/adapters/bedrock/insights-engine';
import { describeEngine, engineChoice, languageEngines } from '../../core/adapters/language-engines';
import { OpenAIConversationEngine } from '../../core/adapters/openai/conversation-engine';
import { OpenAIInsightsEngine } from '../../core/adapters/openai/insights-engine';
import { wireAdapters } from '../../core/adapters/wiring';
import { loadConfig } from '../../core/config';
import { LocalConversationEngine } from '../../core/engines/rules/conversation/local-engine';
import { LocalInsightsEngine } from '../../core/engines/rules/insights/local-engine';
import { createLogger } from '../../core/log';

const llm = {
  LLM_BASE_URL: 'http://user:secret@127.0.0.1:11434/v1',
  LLM_MODEL: 'llama3.2',
  LLM_API_KEY: 'sk-abc',
};

function engines(env: Record<string, string>) {
  const adapters = wireAdapters(loadConfig(env), createLogger('silent'));
  try {
    const e = languageEngines(adapters);
    return { conversation: e.conversation, insights: e.insights };
  } finally {
    adapters.destroy();
  }
}

describe('language engine selection', () => {
  it('is local with nothing set', () => {
    const e = engines({});
    expect(e.conversation).toBeInstanceOf(LocalConversationEngine);
    expect(e.insights).toBeInstanceOf(LocalInsightsEngine);
    expect(describeEngine(loadConfig({}), 'insights')).toBe('local rules (no model)');
  });

  it('is the OpenAI-compatible server where LLM_BASE_URL is set', () => {
    const e = engines(llm);
    expect(e.conversation).toBeInstanceOf(OpenAIConversationEngine);
    expect(e.insights).toBeInstanceOf(OpenAIInsightsEngine);
    // The banner line shows neither the key nor credentials in the URL.
    const line = describeEngine(loadConfig(llm), 'conversation');
    expect(line).toBe('OpenAI-compatible (llama3.2 at http://127.0.0.1:11434/v1)');
    expect(line).not.toMatch(/secret|sk-abc/);
  });

  it('is Bedrock for each engine whose model id is set, even with LLM_BASE_URL', () => {
    const e = engines({ ...llm, INSIGHTS_MODEL_ID: 'amazon.nova-pro-v1:0' });
    expect(e.conversation).toBeInstanceOf(OpenAIConversationEngine);
    expect(e.insights).toBeInstanceOf(BedrockInsightsEngine);
    const both = engines({
      CONVERSATION_MODEL_ID: 'amazon.nova-lite-v1:0',
      INSIGHTS_MODEL_ID: 'amazon.nova-pro-v1:0',
    });
    expect(both.conversation).toBeInstanceOf(BedrockConversationEngine);
    expect(engineChoice(loadConfig({ CONVERSATION_MODEL_ID: 'm' }), 'conversation')).toEqual({
      vendor: 'bedrock',
      model: 'm',
    });
    expect(describeEngine(loadConfig({ CONVERSATION_MODEL_ID: 'm' }), 'conversation')).toBe(
      'Amazon Bedrock (m)',
    );
  });

  it('refuses LLM_BASE_URL without LLM_MODEL, or a URL that is not http(s), at start-up', () => {
    expect(() => loadConfig({ LLM_BASE_URL: 'http://localhost:11434/v1' })).toThrow(
      'invalid configuration: LLM_MODEL: required when LLM_BASE_URL is set',
    );
    expect(() => loadConfig({ LLM_BASE_URL: 'ftp://x/v1', LLM_MODEL: 'm' })).toThrow(/LLM_BASE_URL/);
    expect(loadConfig({ LLM_BASE_URL: '' }).LLM_BASE_URL).toBeUndefined();
  });
});
