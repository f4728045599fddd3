// The OpenAI-compatible insights engine against a local fake server that speaks (and checks) the protocol: JSON-schema
// structured output validated by the analysis the Bedrock engine runs too (insights-analysis.ts), the fallback for
// servers that ignore or refuse response_format, one repair retry, and retries of a throttled or failing fake.server.
import { beforeEach, describe, expect, it } from 'vitest';
import { reduceTool, singlePassTool, systemPrompt } from '../../core/adapters/llm/insights-prompts';
import { openAIClient } from '../../core/adapters/openai/client';
import { type OpenAIInsightsConfig, OpenAIInsightsEngine } from '../../core/adapters/openai/insights-engine';
import { InsightsError } from '../../core/ports/insights-engine';
import { insightsSchema, qaPairSchema } from '../../core/schemas/results';
import { converseFixture, interview, toolInputOf } from '../fixtures/insights/fixtures';
import { syntheticMeeting } from '../fixtures/insights/synthetic';
import {
  type FakeLlmCall,
  fakeLlmServerForTests,
  startFakeLlmServer,
  strictSchemaProblems,
} from '../support/fake-llm-server';

const apiKey = 'sk-test-insights';
const fake = fakeLlmServerForTests({ model: 'qwen2.5:7b', apiKey });
let sleeps: number[] = [];
beforeEach(() => {
  sleeps = [];
});

function engine(config: Partial<OpenAIInsightsConfig> = {}, url = fake.server.baseUrl) {
  return new OpenAIInsightsEngine(openAIClient({ baseUrl: url, apiKey }), {
    model: 'qwen2.5:7b',
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 1,
    ...config,
  });
}

/** The analysis a model returns for interview('good') (the Bedrock fixture's tool input), as JSON text. */
const analysis = () => toolInputOf(converseFixture('analysis')) as { insights: unknown; qa_pairs: unknown[] };
const analysisJson = () => JSON.stringify(analysis());
const request = { utterances: interview('good'), botName: 'Ava', processInsights: true };

describe('OpenAI-compatible insights engine: structured output', () => {
  it('asks for the shared tool schema as a strict json_schema response_format and validates the answer', async () => {
    fake.server.queue({ content: analysisJson() });
    const result = await engine().analyse({
      ...request,
      analysisPrompt: 'Rate the candidate for a senior backend role.',
    });

    const [call, ...more] = fake.server.calls;
    expect(more).toHaveLength(0);
    expect(call!.headers.authorization).toBe(`Bearer ${apiKey}`);
    expect(call!.body).toMatchObject({ model: 'qwen2.5:7b', temperature: 0 });
    // The result names its engine, so a customer can tell a model's insights from the rules'.
    expect(result.insights!.engine).toBe('openai:qwen2.5:7b');
    expect(call!.body.max_tokens).toBeLessThanOrEqual(4096);
    expect(call!.body.stream).toBeFalsy();
    const format = call!.body.response_format!;
    expect(format.type).toBe('json_schema');
    expect(format.json_schema).toMatchObject({ name: 'record_analysis', strict: true });
    expect(strictSchemaProblems(format.json_schema!.schema)).toEqual([]);
    expect(format.json_schema!.schema).toMatchObject({
      type: 'object',
      required: ['qa_pairs', 'insights'],
      additionalProperties: false,
    });
    // The Bedrock engine's prompts, imported: its system prompt, then how to "call" the tool here.
    expect(call!.system.startsWith(systemPrompt('record_analysis'))).toBe(true);
    expect(call!.system).toMatch(/one JSON object matching this JSON Schema/);
    expect(call!.lastUser).toContain(
      '<analysis_instructions>\nRate the candidate for a senior backend role.\n',
    );
    expect(call!.lastUser).toContain('0\tAva (bot): Hi Jordan');

    // The shared reading of the answer: the model's insights completed with the pairs' assessments.
    expect(result.insights).toMatchObject(analysis().insights as object);
    expect(result.insights!.question_assessments).toHaveLength(6);
    expect(result.qaPairs).toHaveLength(6);
    for (const p of result.qaPairs) qaPairSchema.parse(p);
    expect(result.qaPairs[1]).toMatchObject({
      question: 'How did you handle disagreements within the team?',
      asked_by: 'Ava',
      asked_at: request.utterances[2]!.started_at,
    });
  });

  it('reads the JSON out of the text of a server that ignores response_format', async () => {
    fake.server.queue({
      content: `<think>The user wants JSON.</think>\nHere is the analysis:\n\`\`\`json\n${analysisJson()}\n\`\`\`\nLet me know if you need more.`,
    });
    const result = await engine().analyse(request);
    expect(result.insights).toMatchObject(analysis().insights as object);
    expect(fake.server.calls).toHaveLength(1);
  });

  it('drops response_format for good when the server refuses it, and keeps the schema in the prompt', async () => {
    const plain = await startFakeLlmServer({ model: 'qwen2.5:7b', apiKey, rejectResponseFormat: true });
    try {
      plain.handle(() => ({ content: analysisJson() }));
      const e = engine({}, plain.baseUrl);
      await e.analyse(request);
      await e.analyse(request);
      expect(plain.calls.map((c) => c.body.response_format === undefined)).toEqual([true, true]);
      expect(plain.calls[0]!.system).toContain('"required":["qa_pairs","insights"]');
      expect(plain.violations).toEqual([]);
    } finally {
      await plain.close();
    }
  });

  it('asks for Q&A pairs only when process_insights is false', async () => {
    fake.server.queue({ content: JSON.stringify({ qa_pairs: analysis().qa_pairs }) });
    const result = await engine().analyse({ ...request, processInsights: false });
    expect(result.insights).toBeNull();
    expect(result.qaPairs).toHaveLength(6);
    expect(fake.server.calls[0]!.body.response_format!.json_schema!.name).toBe(singlePassTool(false).name);
  });

  it('needs no model call for a silent session', async () => {
    const result = await engine().analyse({ utterances: [], processInsights: true });
    expect(result).toMatchObject({ qaPairs: [], insights: { overall_score: 0 } });
    expect(fake.server.calls).toHaveLength(0);
  });
});

describe('OpenAI-compatible insights engine: invalid answers', () => {
  const invalid = () => {
    const a = analysis() as { insights: Record<string, unknown> };
    a.insights.overall_score = 'very good';
    return JSON.stringify(a);
  };

  it('repairs once: asks again with the problem named', async () => {
    fake.server.queue({ content: 'Sure! {"qa_pairs": [' }, { content: analysisJson() });
    const result = await engine().analyse(request);
    expect(insightsSchema.parse(result.insights)).toMatchObject(analysis().insights as object);
    const [first, second] = fake.server.calls;
    expect(first!.lastUser).not.toContain('rejected');
    expect(second!.lastUser).toContain('Your previous answer was rejected: the answer is not valid JSON');
    expect(second!.body.response_format).toEqual(first!.body.response_format);
  });

  it('names the schema problems in the repair request', async () => {
    fake.server.queue({ content: invalid() }, { content: analysisJson() });
    await engine().analyse(request);
    expect(fake.server.calls[1]!.lastUser).toMatch(/Your previous answer was rejected:[\s\S]*overall_score/);
  });

  it('gives up after a second invalid answer with an InsightsError', async () => {
    fake.server.queue({ content: invalid() }, { content: 'I cannot produce JSON.' });
    const error = await engine()
      .analyse(request)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InsightsError);
    expect(error).toMatchObject({
      code: 'invalid_model_output',
      retryable: false,
      message: 'Insights could not be generated: the language model returned an invalid answer twice.',
    });
    expect(fake.server.calls).toHaveLength(2);
    expect(String((error as Error).cause)).toMatch(/contains no JSON object/);
  });

  it('asks for shorter answers and the whole output limit after an answer cut off at the limit', async () => {
    fake.server.queue(
      { content: analysisJson().slice(0, 300), finishReason: 'length' },
      { content: analysisJson() },
    );
    await engine({ maxOutputTokens: 8000 }).analyse(request);
    const [first, second] = fake.server.calls.map((c) => c.body.max_tokens!);
    expect(first).toBeLessThan(8000);
    expect(second).toBe(8000);
    expect(fake.server.calls[1]!.lastUser).toMatch(/cut off at the output limit/);
  });

  it('treats a refusal as an invalid answer', async () => {
    fake.server.queue({ content: '', refusal: 'I cannot help with that.' }, { content: analysisJson() });
    await engine().analyse(request);
    expect(fake.server.calls[1]!.lastUser).toMatch(/the model refused: I cannot help with that\./);
  });
});

describe('OpenAI-compatible insights engine: a busy or failing server', () => {
  it('retries a 429 after its Retry-After, then succeeds', async () => {
    fake.server.queue(
      { status: 429, message: 'Rate limit reached', headers: { 'retry-after': '3' } },
      { content: analysisJson() },
    );
    const result = await engine().analyse(request);
    expect(result.insights).toMatchObject(analysis().insights as object);
    expect(fake.server.calls).toHaveLength(2);
    expect(sleeps).toEqual([3000]);
  });

  it('a server that stays throttled is a retryable InsightsError (the queue redelivers later)', async () => {
    fake.server.handle(() => ({ status: 429, message: 'Rate limit reached' }));
    const error = await engine({ maxRetries: 2 })
      .analyse(request)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'model_throttled', retryable: true });
    expect(sleeps).toEqual([1000, 2000]);
    expect(fake.server.calls).toHaveLength(3);
  });

  it('retries 5xx; a 4xx is final and not retried', async () => {
    fake.server.queue({ status: 502 }, { content: analysisJson() });
    await engine().analyse(request);
    expect(fake.server.calls).toHaveLength(2);

    fake.server.calls.length = 0;
    fake.server.queue({ status: 400, message: 'context length exceeded' });
    const error = await engine()
      .analyse(request)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'model_error', retryable: false });
    expect((error as Error).message).toBe(
      'Insights could not be generated: the analysis service rejected the request.',
    );
    expect(fake.server.calls).toHaveLength(1);
  });
});

describe('OpenAI-compatible insights engine: a long meeting', () => {
  it('maps the parts and reduces their notes with the shared prompts', async () => {
    const utterances = syntheticMeeting(6000);
    const part = toolInputOf(converseFixture('part')) as { qa_pairs: { line: number }[] };
    fake.server.handle((call: FakeLlmCall) => {
      const name = call.body.response_format?.json_schema?.name;
      if (name === reduceTool.name)
        return { content: JSON.stringify(toolInputOf(converseFixture('insights'))) };
      const [, first] = (/own lines are (\d+) to (\d+)/.exec(call.lastUser) ?? []).map(Number);
      const out = structuredClone(part);
      for (const p of out.qa_pairs) p.line += first!;
      return { content: JSON.stringify(out) };
    });
    const result = await engine({ chunkChars: 8000 }).analyse({ utterances, processInsights: true });
    const names = fake.server.calls.map((c) => c.body.response_format?.json_schema?.name);
    const maps = names.filter((n) => n === 'record_part_analysis').length;
    expect(maps).toBeGreaterThanOrEqual(3);
    expect(names.filter((n) => n === 'record_insights')).toHaveLength(1);
    expect(result.qaPairs).toHaveLength(maps * part.qa_pairs.length);
    expect(result.insights).toMatchObject(toolInputOf(converseFixture('insights')));
  });
});
