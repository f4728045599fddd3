// ConversationEngine on any OpenAI-compatible server (Ollama, vLLM, LM Studio, OpenAI): streamed chat completions,
// text handed on as it arrives. The prompt, the streaming hand-off, retries and the turn's time budget are the ones
// the Bedrock engine uses (../llm/conversation-engine.ts); this file maps them to chat messages and HTTP errors.
import type OpenAI from 'openai';
import type {
  ChatCompletionChunk,
  ChatCompletionCreateParamsStreaming,
} from 'openai/resources/chat/completions';
import type { ConversationContext } from '../../ports/conversation-engine';
import type { RetryVerdict } from '../../retry';
import {
  type ModelChunk,
  type ModelConversationConfig,
  ModelConversationEngine,
} from '../llm/conversation-engine';
import type { ConversationTurn } from '../llm/conversation-prompt';
import { openAIErrorName, openAIRetryVerdict } from './errors';

export interface OpenAIConversationConfig extends ModelConversationConfig {
  /** The server's model name (e.g. llama3.2 on Ollama, the served model on vLLM, gpt-4o-mini on OpenAI). */
  model: string;
}

export class OpenAIConversationEngine extends ModelConversationEngine<
  OpenAI,
  OpenAIConversationConfig,
  ChatCompletionCreateParamsStreaming
> {
  request(kind: ConversationTurn, ctx: ConversationContext): ChatCompletionCreateParamsStreaming {
    const { system, turns } = this.prompt(kind, ctx);
    return {
      model: this.config.model,
      messages: [
        { role: 'system', content: system },
        ...turns.map((t) => ({ role: t.role, content: t.text })),
      ],
      stream: true,
      max_tokens: this.settings.maxTokens,
      temperature: this.settings.temperature,
    };
  }

  protected async open(request: ChatCompletionCreateParamsStreaming, signal: AbortSignal) {
    return chunks(await this.client.chat.completions.create(request, { signal }));
  }

  protected retryVerdict(err: unknown): RetryVerdict {
    return openAIRetryVerdict(err);
  }

  protected errorName(err: unknown): string {
    return openAIErrorName(err);
  }
}

async function* chunks(stream: AsyncIterable<ChatCompletionChunk>): AsyncGenerator<ModelChunk> {
  const thinking = new ThinkingFilter();
  for await (const chunk of stream) {
    const choice = chunk.choices[0];
    const finish = choice?.finish_reason;
    yield {
      text: choice?.delta?.content ? thinking.push(choice.delta.content) : undefined,
      stopReason: finish === 'length' ? 'max_tokens' : (finish ?? undefined),
      usage: chunk.usage
        ? { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens }
        : undefined,
    };
  }
  const rest = thinking.end();
  if (rest) yield { text: rest };
}

/**
 * Drops a leading <think>…</think> block: reasoning models served by Ollama or vLLM may write their thinking
 * into the content, and it must never be spoken. Text that could still open such a block is held back.
 */
export class ThinkingFilter {
  private state: 'start' | 'thinking' | 'speaking' = 'start';
  private buffer = '';

  push(text: string): string {
    if (this.state === 'speaking') return text;
    this.buffer += text;
    if (this.state === 'start') {
      const lead = this.buffer.trimStart();
      if (open.startsWith(lead)) return '';
      if (!lead.startsWith(open)) return this.speak(this.buffer);
      this.state = 'thinking';
    }
    const end = this.buffer.indexOf(close);
    if (end < 0) {
      // Only a possible start of the closing tag needs keeping.
      this.buffer = this.buffer.slice(-close.length);
      return '';
    }
    return this.speak(this.buffer.slice(end + close.length));
  }

  /** What is still held at the end of the stream (an unfinished thought is dropped). */
  end(): string {
    return this.state === 'start' ? this.speak(this.buffer) : '';
  }

  private speak(text: string): string {
    this.state = 'speaking';
    this.buffer = '';
    return text;
  }
}

const open = '<think>';
const close = '</think>';
