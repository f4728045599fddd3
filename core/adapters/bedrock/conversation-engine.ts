// ConversationEngine on Amazon Bedrock: the ConverseStream API, text streamed as it is generated. The prompt,
// the streaming hand-off, retries and the turn's time budget are shared with the OpenAI-compatible engine
// (../llm/conversation-engine.ts); this file maps them to Converse messages and Bedrock's errors.
import {
  type BedrockRuntimeClient,
  ConverseStreamCommand,
  type ConverseStreamCommandInput,
  type ConverseStreamOutput,
} from '@aws-sdk/client-bedrock-runtime';
import type { ConversationContext } from '../../ports/conversation-engine';
import type { RetryVerdict } from '../../retry';
import {
  type ModelChunk,
  type ModelConversationConfig,
  ModelConversationEngine,
} from '../llm/conversation-engine';
import type { ConversationTurn } from '../llm/conversation-prompt';
import { bedrockThrottlingErrors } from './throttling';

export interface BedrockConversationConfig extends ModelConversationConfig {
  /** Bedrock model id or inference profile that supports ConverseStream (e.g. a Claude or Nova model). */
  modelId: string;
}

/** Exception members of the ConverseStream event union, by the error name they stand for. */
const streamExceptions = {
  internalServerException: 'InternalServerException',
  modelStreamErrorException: 'ModelStreamErrorException',
  serviceUnavailableException: 'ServiceUnavailableException',
  throttlingException: 'ThrottlingException',
  validationException: 'ValidationException',
} as const;

export class BedrockConversationEngine extends ModelConversationEngine<
  BedrockRuntimeClient,
  BedrockConversationConfig,
  ConverseStreamCommandInput
> {
  request(kind: ConversationTurn, ctx: ConversationContext): ConverseStreamCommandInput {
    const { system, turns } = this.prompt(kind, ctx);
    return {
      modelId: this.config.modelId,
      system: [{ text: system }],
      messages: turns.map((t) => ({ role: t.role, content: [{ text: t.text }] })),
      inferenceConfig: { maxTokens: this.settings.maxTokens, temperature: this.settings.temperature },
    };
  }

  protected async open(input: ConverseStreamCommandInput, signal: AbortSignal) {
    const out = await this.client.send(new ConverseStreamCommand(input), { abortSignal: signal });
    if (!out.stream) throw new Error('ConverseStream returned no stream');
    return chunks(out.stream);
  }

  protected retryVerdict(err: unknown): RetryVerdict {
    return { retry: bedrockThrottlingErrors.has(this.errorName(err)) };
  }

  protected errorName(err: unknown): string {
    if (err && typeof err === 'object' && 'name' in err && typeof err.name === 'string') return err.name;
    return '';
  }
}

async function* chunks(stream: AsyncIterable<ConverseStreamOutput>): AsyncGenerator<ModelChunk> {
  for await (const event of stream) {
    const failure = streamException(event);
    if (failure) throw failure;
    const usage = event.metadata?.usage;
    yield {
      text: event.contentBlockDelta?.delta?.text,
      stopReason: event.messageStop?.stopReason,
      usage: usage && { inputTokens: usage.inputTokens ?? 0, outputTokens: usage.outputTokens ?? 0 },
    };
  }
}

/** A ConverseStream exception event as an error (the SDK throws these itself; a recorded stream may not). */
function streamException(event: ConverseStreamOutput): Error | undefined {
  for (const [member, name] of Object.entries(streamExceptions)) {
    const body = (event as unknown as Record<string, unknown>)[member] as { message?: string } | undefined;
    if (body) {
      const err = new Error(body.message ?? name);
      err.name = name;
      return err;
    }
  }
  return undefined;
}
