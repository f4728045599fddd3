// InsightsEngine on Amazon Bedrock: the Converse API with a forced JSON-schema tool. The analysis itself (parts,
// prompts, budgets, retries of invalid answers, the deadline) is ../llm/insights-analysis.ts; this file makes the calls.
import {
  type BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
} from '@aws-sdk/client-bedrock-runtime';
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
import { toolInputSchema } from '../llm/structured-output';
import { bedrockThrottlingErrors } from './throttling';

export interface BedrockInsightsConfig extends ModelInsightsSettings {
  /** Bedrock model id or inference profile (e.g. a Claude model); it must support forced tool use. */
  modelId: string;
  /** Retries of a throttled call (ThrottlingException, ServiceUnavailableException, ModelNotReadyException). */
  maxThrottleRetries?: number;
  /** Sets `strict` on the tool (grammar-constrained input) for models that support it. */
  strictToolUse?: boolean;
}

const bedrockDefaults = {
  ...modelInsightsDefaults,
  chunkChars: 60_000,
  maxThrottleRetries: 5,
  strictToolUse: false,
} as const;

/** Faults a later attempt (a queue redelivery) may not see again. */
const transientErrors = new Set(['InternalServerException', 'ModelTimeoutException', 'ModelErrorException']);

export class BedrockInsightsEngine extends ModelInsightsEngine<BedrockRuntimeClient, BedrockInsightsConfig> {
  constructor(client: BedrockRuntimeClient, config: BedrockInsightsConfig) {
    super(client, config, bedrockDefaults, `bedrock:${config.modelId}`);
  }

  protected async callTool(call: ToolCall, deadline: Deadline, usage: ModelUsage): Promise<ToolAnswer> {
    const out = await this.converse(this.request(call), deadline, usage);
    return { ...toolInput(out, call.tool.name), cutOff: out.stopReason === 'max_tokens' };
  }

  private request(call: ToolCall): ConverseCommandInput {
    return {
      modelId: this.config.modelId,
      system: [{ text: call.system }],
      messages: [{ role: 'user', content: [{ text: call.userText }] }],
      inferenceConfig: { maxTokens: call.maxTokens, temperature: this.config.temperature },
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: call.tool.name,
              description: call.tool.description,
              inputSchema: { json: toolInputSchema(call.tool.schema) as never },
              ...(this.config.strictToolUse ? { strict: true } : {}),
            },
          },
        ],
        toolChoice: { tool: { name: call.tool.name } },
      },
    };
  }

  /** One Converse call, cancelled at the deadline; throttling is retried with backoff while time remains. */
  private async converse(
    input: ConverseCommandInput,
    deadline: Deadline,
    usage: ModelUsage,
  ): Promise<ConverseCommandOutput> {
    const c = this.config;
    const out = await callWithinDeadline(
      deadline,
      { ...c, maxRetries: c.maxThrottleRetries },
      () => {
        usage.calls++;
        return this.client.send(new ConverseCommand(input), { abortSignal: deadline.signal });
      },
      (err) => ({ retry: bedrockThrottlingErrors.has(errorName(err)) }),
      errorName,
      (err) =>
        modelCallError(err, {
          throttled: bedrockThrottlingErrors.has(errorName(err)),
          retryable: transientErrors.has(errorName(err)) || !(err instanceof Error && '$metadata' in err),
        }),
    );
    usage.inputTokens += out.usage?.inputTokens ?? 0;
    usage.outputTokens += out.usage?.outputTokens ?? 0;
    return out;
  }
}

const errorName = (err: unknown) => (err instanceof Error ? err.name : '');

type Found = { ok: true; input: unknown } | { ok: false; problem: string };

/** The input of the model's call of `toolName` (a JSON string is parsed, as some models send one). */
function toolInput(out: ConverseCommandOutput, toolName: string): Found {
  const blocks = out.output?.message?.content ?? [];
  const use = blocks.find((b) => b.toolUse?.name === toolName)?.toolUse;
  if (!use)
    return {
      ok: false,
      problem: `the answer did not call ${toolName} (stop reason ${out.stopReason ?? 'none'})`,
    };
  if (typeof use.input !== 'string') return { ok: true, input: use.input };
  try {
    return { ok: true, input: JSON.parse(use.input) };
  } catch {
    return { ok: false, problem: `the input of ${toolName} is not valid JSON` };
  }
}
