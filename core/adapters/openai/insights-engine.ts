// InsightsEngine on any OpenAI-compatible server: the analysis of the Bedrock engine (../llm/insights-analysis.ts:
// parts, prompts, zod schemas, budgets, the repair retry, the deadline), with each model call made as a chat
// completion asking for the tool's input as JSON-schema structured output. For servers that ignore
// `response_format` the JSON is read out of the text; a server that refuses it gets the schema in the prompt only.
import type OpenAI from 'openai';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
} from 'openai/resources/chat/completions';
import { InsightsError } from '../../ports/insights-engine';
import {
  callWithinDeadline,
  type Deadline,
  ModelInsightsEngine,
  type ModelInsightsSettings,
  type ModelUsage,
  modelCallError,
  modelInsightsDefaults,
  type ToolAnswer,
  type ToolCall,
} from '../llm/insights-analysis';
import { extractJson, responseJsonSchema, toolInputSchema } from '../llm/structured-output';
import { isThrottled, openAIErrorName, openAIRetryVerdict } from './errors';

export interface OpenAIInsightsConfig extends ModelInsightsSettings {
  /** The server's model name; best one that supports JSON-schema structured output (others fall back). */
  model: string;
  /** Retries of a call that got 429, 408, 409, a 5xx or no connection. */
  maxRetries?: number;
}

// The shared deadline; a slow local model needs more (LLM_INSIGHTS_DEADLINE_MS, docs/ai-engines.md).
const openAIInsightsDefaults = { ...modelInsightsDefaults, chunkChars: 24_000, maxRetries: 5 } as const;

export class OpenAIInsightsEngine extends ModelInsightsEngine<OpenAI, OpenAIInsightsConfig> {
  /** Cleared for good once the server refuses `response_format`: the schema then travels in the prompt only. */
  private responseFormat = true;

  constructor(client: OpenAI, config: OpenAIInsightsConfig) {
    super(client, config, openAIInsightsDefaults, `openai:${config.model}`);
  }

  /** One "tool call": the tool's input as the JSON of the answer (validated against the schema by the caller). */
  protected async callTool(call: ToolCall, deadline: Deadline, usage: ModelUsage): Promise<ToolAnswer> {
    const res = await this.complete(call, deadline, usage);
    const choice = res.choices[0];
    const cutOff = choice?.finish_reason === 'length';
    if (choice?.message?.refusal) {
      return { ok: false, problem: `the model refused: ${choice.message.refusal.slice(0, 300)}`, cutOff };
    }
    const json = extractJson(choice?.message?.content ?? '');
    return json.ok ? { ok: true, input: json.value, cutOff } : { ok: false, problem: json.problem, cutOff };
  }

  /** One chat completion, cancelled at the deadline; 429, 5xx and lost connections are retried while time remains. */
  private async complete(call: ToolCall, deadline: Deadline, usage: ModelUsage): Promise<ChatCompletion> {
    const c = this.config;
    for (;;) {
      const body = this.request(call);
      try {
        const res = await callWithinDeadline(
          deadline,
          c,
          () => {
            usage.calls++;
            return this.client.chat.completions.create(body, { signal: deadline.signal });
          },
          openAIRetryVerdict,
          openAIErrorName,
          (err) => {
            // Not an InsightsError yet: a refused response_format is answered below by asking without it.
            if (this.responseFormat && refusesResponseFormat(err)) return new ResponseFormatRefused(err);
            return modelCallError(err, {
              throttled: isThrottled(err),
              retryable: openAIRetryVerdict(err).retry,
            });
          },
        );
        usage.inputTokens += res.usage?.prompt_tokens ?? 0;
        usage.outputTokens += res.usage?.completion_tokens ?? 0;
        return res;
      } catch (err) {
        if (!(err instanceof ResponseFormatRefused)) throw err;
        this.responseFormat = false;
        c.log?.warn('model server refused response_format; the schema goes in the prompt only', {
          error: openAIErrorName(err.cause),
        });
      }
    }
  }

  private request(call: ToolCall): ChatCompletionCreateParamsNonStreaming {
    const { schema, strict } = responseJsonSchema(call.tool.schema);
    return {
      model: this.config.model,
      messages: [
        { role: 'system', content: `${call.system}\n${jsonAnswerRule(call)}` },
        { role: 'user', content: call.userText },
      ],
      max_tokens: call.maxTokens,
      temperature: this.config.temperature,
      ...(this.responseFormat
        ? {
            response_format: {
              type: 'json_schema',
              json_schema: { name: call.tool.name, description: call.tool.description, schema, strict },
            },
          }
        : {}),
    };
  }
}

/**
 * How the shared prompts' "call the tool" is answered here: with the tool's input as JSON. The schema is in the
 * prompt too, for servers that do not constrain the answer to `response_format`.
 */
function jsonAnswerRule(call: ToolCall): string {
  const name = call.tool.name;
  return `There are no tools in this conversation: calling ${name} means answering with its input, one JSON object matching this JSON Schema, and no other text:\n${JSON.stringify(toolInputSchema(call.tool.schema))}`;
}

/** A 400 that names response_format: the server does not support JSON-schema output. */
function refusesResponseFormat(err: unknown): boolean {
  const e = err as { status?: unknown; message?: unknown };
  return e?.status === 400 && typeof e.message === 'string' && /response_format|json_schema/i.test(e.message);
}

/** A server's refusal of `response_format`, carried out of the retry loop to be answered by asking without it. */
class ResponseFormatRefused extends InsightsError {
  constructor(cause: unknown) {
    super('model_error', 'the model server refused response_format', { retryable: false, cause });
  }
}
