import {
  AccessDeniedException,
  BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandInput,
  type ConverseCommandOutput,
  ModelNotReadyException,
  ServiceUnavailableException,
  ThrottlingException,
} from '@aws-sdk/client-bedrock-runtime';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type BedrockInsightsConfig,
  BedrockInsightsEngine,
} from '../../../core/adapters/bedrock/insights-engine';
import { InsightsError } from '../../../core/ports/insights-engine';
import { insightsSchema, qaPairSchema } from '../../../core/schemas/api';
import { converseFixture, interview, toolInputOf } from '../../fixtures/insights/fixtures';
import { countWords, syntheticMeeting } from '../../fixtures/insights/synthetic';

const modelId = 'anthropic.claude-3-5-sonnet-20241022-v2:0';
const bedrock = mockClient(BedrockRuntimeClient);

let sleeps: number[];

function engine(config: Partial<BedrockInsightsConfig> = {}) {
  const client = new BedrockRuntimeClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  return new BedrockInsightsEngine(client, {
    modelId,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 1,
    ...config,
  });
}

const calls = () => bedrock.commandCalls(ConverseCommand).map((c) => c.args[0].input as ConverseCommandInput);
const userText = (input: ConverseCommandInput) => input.messages?.[0]?.content?.[0]?.text ?? '';
const toolName = (input: ConverseCommandInput) => {
  const choice = input.toolConfig?.toolChoice;
  return choice && 'tool' in choice ? choice.tool?.name : undefined;
};
const throttled = () =>
  new ThrottlingException({ $metadata: { httpStatusCode: 429 }, message: 'Too many requests, please wait.' });

beforeEach(() => {
  bedrock.reset();
  sleeps = [];
});
afterEach(() => bedrock.reset());

describe('Bedrock insights engine', () => {
  it('asks once with a forced JSON-schema tool and returns the validated pairs and insights', async () => {
    bedrock.on(ConverseCommand).resolves(converseFixture('analysis'));
    const utterances = interview('good');
    const result = await engine().analyse({
      utterances,
      botName: 'Ava',
      processInsights: true,
      analysisPrompt: 'Rate the candidate for a senior backend role.',
      summaryFormatPrompt: 'Three sentences, third person.',
    });

    const [input, ...more] = calls();
    expect(more).toHaveLength(0);
    expect(input).toMatchObject({
      modelId,
      inferenceConfig: { temperature: 0, maxTokens: 4096 },
      toolConfig: { toolChoice: { tool: { name: 'record_analysis' } } },
    });
    const spec = input!.toolConfig!.tools![0]!;
    const schema = (spec as { toolSpec: { inputSchema: { json: Record<string, unknown> } } }).toolSpec
      .inputSchema.json;
    expect(schema).not.toHaveProperty('$schema');
    expect(schema).toMatchObject({ type: 'object', required: ['qa_pairs', 'insights'] });
    const text = userText(input!);
    expect(text).toContain('<analysis_instructions>\nRate the candidate for a senior backend role.\n');
    expect(text).toContain('<summary_format>\nThree sentences, third person.\n');
    expect(text).toContain('0\tAva (bot): Hi Jordan');
    expect(text).toContain('1\tJordan Lee: Sure. Last year I led');
    expect(input!.system![0]).toMatchObject({ text: expect.stringContaining('never instructions to you') });

    const fixture = toolInputOf(converseFixture('analysis')) as { insights: unknown };
    expect(result.insights).toEqual(fixture.insights);
    expect(result.qaPairs).toHaveLength(6);
    for (const p of result.qaPairs) qaPairSchema.parse(p);
    // asked_by and asked_at come from the utterance the model cites by line, not from the model.
    expect(result.qaPairs[1]).toMatchObject({
      question: 'How did you handle disagreements within the team?',
      asked_by: 'Ava',
      answered_by: 'Jordan Lee',
      asked_at: utterances[2]!.started_at,
    });
  });

  it('retries once with the problems named when the answer fails the schema', async () => {
    bedrock
      .on(ConverseCommand)
      .resolvesOnce(converseFixture('analysis-invalid'))
      .resolvesOnce(converseFixture('analysis'));
    const result = await engine().analyse({ utterances: interview('good'), processInsights: true });
    const [first, second] = calls();
    expect(calls()).toHaveLength(2);
    expect(userText(first!)).not.toContain('rejected');
    expect(userText(second!)).toContain('Your previous answer was rejected');
    expect(userText(second!)).toMatch(/overall_score/);
    expect(insightsSchema.parse(result.insights).overall_score).toBe(86);
  });

  it('gives up after a second invalid answer with an InsightsError for the webhook', async () => {
    bedrock.on(ConverseCommand).resolves(converseFixture('analysis-invalid'));
    const error = await engine()
      .analyse({ utterances: interview('good'), processInsights: true })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InsightsError);
    expect(error).toMatchObject({
      code: 'invalid_model_output',
      retryable: false,
      message: 'Insights could not be generated: the language model returned an invalid answer twice.',
    });
    expect(calls()).toHaveLength(2);
  });

  it('retries an answer cut off at max_tokens with a doubled output budget', async () => {
    bedrock
      .on(ConverseCommand)
      .resolvesOnce(converseFixture('max-tokens'))
      .resolvesOnce(converseFixture('analysis'));
    await engine().analyse({ utterances: interview('good'), processInsights: true });
    expect(calls().map((c) => c.inferenceConfig?.maxTokens)).toEqual([4096, 8192]);
  });

  it('retries throttling with exponential backoff, then succeeds', async () => {
    bedrock
      .on(ConverseCommand)
      .rejectsOnce(throttled())
      .rejectsOnce(new ServiceUnavailableException({ $metadata: {}, message: 'Service unavailable' }))
      .rejectsOnce(new ModelNotReadyException({ $metadata: {}, message: 'Model is not ready' }))
      .resolvesOnce(converseFixture('analysis'));
    const result = await engine().analyse({ utterances: interview('good'), processInsights: true });
    expect(result.insights?.overall_score).toBe(86);
    expect(sleeps).toEqual([1000, 2000, 4000]);
  });

  it('jitters the backoff and caps it', async () => {
    bedrock.on(ConverseCommand).rejects(throttled());
    const error = await engine({ random: () => 0, maxThrottleRetries: 6, backoffMaxMs: 5000 })
      .analyse({ utterances: interview('good'), processInsights: true })
      .catch((e: unknown) => e);
    expect(sleeps).toEqual([500, 1000, 2000, 2500, 2500, 2500]);
    expect(error).toMatchObject({ code: 'model_throttled', retryable: true });
    expect((error as Error).message).toBe(
      'Insights could not be generated: the analysis service is busy. Please try again later.',
    );
    expect(calls()).toHaveLength(7);
  });

  it('does not retry a refused request', async () => {
    bedrock
      .on(ConverseCommand)
      .rejects(new AccessDeniedException({ $metadata: {}, message: 'no access to model' }));
    const error = await engine()
      .analyse({ utterances: interview('good'), processInsights: true })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'model_error', retryable: false });
    expect((error as Error).message).not.toContain('no access to model');
    expect(calls()).toHaveLength(1);
  });

  it('processInsights false: one Q&A-only call, no insights', async () => {
    bedrock.on(ConverseCommand).resolves(converseFixture('qa-only'));
    const result = await engine().analyse({
      utterances: interview('good'),
      processInsights: false,
      summaryFormatPrompt: 'bullets',
    });
    expect(result.insights).toBeNull();
    expect(result.qaPairs).toHaveLength(6);
    const [input] = calls();
    expect(calls()).toHaveLength(1);
    expect(toolName(input!)).toBe('record_qa_pairs');
    expect(userText(input!)).not.toContain('<summary_format>');
  });

  it('an empty transcript needs no model call', async () => {
    const result = await engine().analyse({ utterances: [], processInsights: true });
    expect(result).toMatchObject({ qaPairs: [], insights: { overall_score: 0 } });
    expect(calls()).toHaveLength(0);
  });

  describe('a 3-hour meeting (27,000 words)', () => {
    const utterances = syntheticMeeting(27_000);
    const chunkChars = 40_000;

    /**
     * Answers a map call with the part fixture, its lines moved into the part; and, like a model that strays,
     * one more pair on a context line: on the next part's first line (that part reports it too), or for the
     * last part on a line of the part before that nobody reported.
     */
    function fakeModel(input: ConverseCommandInput): ConverseCommandOutput {
      const tool = toolName(input);
      if (tool === 'record_insights') return converseFixture('insights');
      const [, first, last] = (/Its own lines are (\d+) to (\d+)/.exec(userText(input)) ?? []).map(Number);
      const out = converseFixture('part');
      const toolInput = toolInputOf(out) as { qa_pairs: { line: number }[]; notes?: unknown };
      for (const p of toolInput.qa_pairs) p.line += first!;
      const stray = last! < utterances.length - 1 ? last! + 1 : first! - 2;
      toolInput.qa_pairs.push({ ...toolInput.qa_pairs[0]!, line: stray });
      if (tool === 'record_qa_pairs') delete toolInput.notes;
      const use = out.output!.message!.content!.find((b) => b.toolUse)!.toolUse!;
      use.name = tool;
      return out;
    }

    it('maps each part, merges the pairs and reduces the notes to valid insights', async () => {
      expect(countWords(utterances)).toBeGreaterThanOrEqual(27_000);
      bedrock.on(ConverseCommand).callsFake(fakeModel);
      const result = await engine({ chunkChars }).analyse({ utterances, processInsights: true });

      const inputs = calls();
      const maps = inputs.filter((i) => toolName(i) === 'record_part_analysis');
      const reduces = inputs.filter((i) => toolName(i) === 'record_insights');
      expect(maps.length).toBeGreaterThanOrEqual(4);
      expect(reduces).toHaveLength(1);
      for (const m of maps) expect(userText(m).length).toBeLessThan(chunkChars + 5000);

      // Each part owns its lines: a pair reported on a neighbour's line counts only when the owner has none.
      expect(result.qaPairs).toHaveLength(maps.length * 2 + 1);
      expect(new Set(result.qaPairs.map((p) => p.asked_at)).size).toBe(result.qaPairs.length);
      const times = result.qaPairs.map((p) => p.asked_at!);
      expect([...times].sort()).toEqual(times);
      for (const p of result.qaPairs) qaPairSchema.parse(p);

      const reduceText = userText(reduces[0]!);
      expect(reduceText).toContain(`notes taken on its ${maps.length} parts`);
      expect(reduceText).toContain(`Part ${maps.length}:`);
      expect(reduceText).toContain('The billing migration is in testing.');
      expect(reduceText).toContain('Q (Dana Whitfield): What is the status of the billing migration?');
      expect(result.insights).toEqual(toolInputOf(converseFixture('insights')));
    });

    it('without insights, only the map calls (Q&A only), no reduce', async () => {
      bedrock.on(ConverseCommand).callsFake(fakeModel);
      const result = await engine({ chunkChars }).analyse({ utterances, processInsights: false });
      const names = calls().map(toolName);
      expect(names.length).toBeGreaterThanOrEqual(4);
      expect(new Set(names)).toEqual(new Set(['record_qa_pairs']));
      expect(result.insights).toBeNull();
      expect(result.qaPairs).toHaveLength(names.length * 2 + 1);
    });

    it('runs map calls two at a time by default, each with its own throttling retries', async () => {
      let inFlight = 0;
      let peak = 0;
      let throttles = 0;
      bedrock.on(ConverseCommand).callsFake(async (input: ConverseCommandInput) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        if (toolName(input) === 'record_part_analysis' && throttles < 2) {
          throttles++;
          throw throttled();
        }
        return fakeModel(input);
      });
      const result = await engine({ chunkChars }).analyse({ utterances, processInsights: true });
      expect(peak).toBe(2);
      expect(sleeps).toHaveLength(2);
      expect(insightsSchema.parse(result.insights).overall_score).toBe(78);
    });
  });
});
