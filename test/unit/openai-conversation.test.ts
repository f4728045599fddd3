// The OpenAI-compatible conversation engine against a local fake server that speaks (and checks) the protocol:
// sentences handed on while the model is still streaming, the request it sends, retries, the turn's time budget.
import type { ConverseStreamCommandInput } from '@aws-sdk/client-bedrock-runtime';
import { beforeEach, describe, expect, it } from 'vitest';
import { BedrockConversationEngine } from '../../core/adapters/bedrock/conversation-engine';
import { ConversationError } from '../../core/adapters/llm/conversation-engine';
import { turnMarkers } from '../../core/adapters/llm/conversation-prompt';
import { openAIClient } from '../../core/adapters/openai/client';
import {
  type OpenAIConversationConfig,
  OpenAIConversationEngine,
  ThinkingFilter,
} from '../../core/adapters/openai/conversation-engine';
import type { Utterance } from '../../core/bots/transcript';
import { type ConversationContext, sentences } from '../../core/ports/conversation-engine';
import { fakeLlmServerForTests, startFakeLlmServer } from '../support/fake-llm-server';

const apiKey = 'sk-test-conversation';
const fake = fakeLlmServerForTests({ model: 'llama3.2', apiKey });
let sleeps: number[] = [];
beforeEach(() => {
  sleeps = [];
});

function engine(
  config: Partial<OpenAIConversationConfig> = {},
  /** null: no key configured. */
  key: string | null = apiKey,
  url = fake.server.baseUrl,
) {
  return new OpenAIConversationEngine(openAIClient({ baseUrl: url, apiKey: key ?? undefined }), {
    model: 'llama3.2',
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 1,
    ...config,
  });
}

let clock = Date.parse('2025-03-04T10:00:00Z');
const line = (text: string, who: 'ann' | 'bot' = 'ann'): Utterance => {
  clock += 1000;
  return {
    speaker: who === 'bot' ? 'Ava' : 'Ann',
    participant_id: who,
    started_at: new Date(clock).toISOString(),
    text,
    ...(who === 'bot' ? { is_bot: true } : {}),
  };
};

const prompt = `Interview a candidate for a backend role. Ask, one at a time:
1. Tell me about your last project
2. What was the hardest bug you fixed?
Then thank them and say we will reply within a week.`;

const ctx = (transcript: Utterance[]): ConversationContext => ({
  botName: 'Ava',
  prompt,
  greeting: 'Hi, thanks for joining',
  transcript,
});

const interview = () => [
  line("Hello, I'm Ava. Tell me about your last project?", 'bot'),
  line('I moved our billing system to three services without downtime.'),
];

async function collect(it: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const c of it) out.push(c);
  return out;
}

describe('OpenAI-compatible conversation engine: streaming', () => {
  it('hands the first sentence on while the server is still streaming the rest', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    fake.server.queue({
      content: '',
      chunks: [
        'Thanks',
        ', Ann. A billing',
        ' migration with no downtime',
        ' is impressive. What was',
        ' the hardest bug?',
      ],
      gate,
      gateAfter: 3,
    });
    const it = sentences(engine().reply(ctx(interview())))[Symbol.asyncIterator]();
    const first = await it.next();
    expect(first.value).toBe('Thanks, Ann.');
    expect(fake.server.calls[0]!.finished).toBe(false); // the "model" has not written the rest yet
    release();
    const rest: string[] = [];
    for (let r = await it.next(); !r.done; r = await it.next()) rest.push(r.value);
    expect(rest).toEqual([
      'A billing migration with no downtime is impressive.',
      'What was the hardest bug?',
    ]);
    expect(fake.server.calls[0]!.finished).toBe(true);
  });

  it('sends the model, the stream flag, the key, and the shared prompt as chat messages', async () => {
    fake.server.queue({ content: 'Great. What was the hardest bug you fixed?' });
    const transcript = [...interview(), line('Bob helped with the data.')];
    await collect(engine({ maxTokens: 200, temperature: 0.3 }).reply(ctx(transcript)));
    const [call] = fake.server.calls;
    expect(call!.headers.authorization).toBe(`Bearer ${apiKey}`);
    expect(call!.body).toMatchObject({ model: 'llama3.2', stream: true, max_tokens: 200, temperature: 0.3 });
    expect(call!.body.response_format).toBeUndefined();
    expect(call!.body.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user']);
    expect(call!.body.messages[1]!.content).toBe('(The meeting has started.)');
    expect(call!.body.messages[3]!.content).toBe(
      'Ann: I moved our billing system to three services without downtime.\nAnn: Bob helped with the data.',
    );

    // The same prompt as the Bedrock engine: one builder, two message formats.
    const bedrock = new BedrockConversationEngine({} as never, { modelId: 'm' }).request(
      'reply',
      ctx(transcript),
    ) as ConverseStreamCommandInput;
    expect(call!.system).toBe(bedrock.system![0]!.text);
    expect(call!.body.messages.slice(1).map((m) => m.content)).toEqual(
      bedrock.messages!.map((m) => m.content![0]!.text),
    );
    expect(call!.system).toContain('2. What was the hardest bug you fixed?');
    expect(call!.system).toMatch(/never invent an answer/);
  });

  it('sends no Authorization header when no key is configured (local servers)', async () => {
    const open = await startFakeLlmServer({ model: 'llama3.2', apiKey: null });
    try {
      open.queue({ content: 'Hello, I am Ava.' });
      expect(await collect(engine({}, null, open.baseUrl).greet(ctx([])))).toEqual([
        'Hello, ',
        'I ',
        'am ',
        'Ava.',
      ]);
      expect(open.calls[0]!.headers.authorization).toBeUndefined();
      expect(open.violations).toEqual([]);
    } finally {
      await open.close();
    }
  });

  it("says nothing for the listen sentinel and never speaks a reasoning model's <think> block", async () => {
    fake.server.queue(
      { content: '', chunks: ['[LIS', 'TEN]'] },
      {
        content: '',
        chunks: [
          '<thi',
          'nk>Ann is done; ask',
          ' the next one.</th',
          'ink>\n\nThanks. ',
          'What was the hardest bug?',
        ],
      },
    );
    const e = engine();
    expect(await collect(e.reply(ctx(interview())))).toEqual([]);
    expect(await collect(sentences(e.reply(ctx(interview()))))).toEqual([
      'Thanks.',
      'What was the hardest bug?',
    ]);
  });
});

describe('OpenAI-compatible conversation engine: the model judges whether the person finished', () => {
  it('a mark split from the words, after a <think> block, or alone: never spoken; unfinished yields nothing', async () => {
    const { complete, short, long } = turnMarkers;
    fake.server.queue(
      { content: '', chunks: ['\n', complete, ' Thanks', ', Ann.'] },
      { content: '', chunks: ['<think>She trails off.</think>', '\n', short] },
      { content: '', chunks: [long, '\n'] },
      { content: 'Thanks, Ann. What was the hardest bug?' },
    );
    const e = engine();
    const verdicts: string[] = [];
    const judged: ConversationContext = { ...ctx(interview()), onUnfinished: (w) => verdicts.push(w) };
    expect((await collect(e.reply(judged))).join('')).toBe('Thanks, Ann.');
    expect(await collect(e.reply(judged))).toEqual([]);
    expect(await collect(e.reply(judged))).toEqual([]);
    expect(verdicts).toEqual(['short', 'long']);
    // A server whose model ignores the instruction: no mark, a complete reply.
    expect(await collect(sentences(e.reply(judged)))).toEqual(['Thanks, Ann.', 'What was the hardest bug?']);
    expect(verdicts).toEqual(['short', 'long']);
    expect(fake.server.calls[0]!.system).toContain(`${short} and nothing else`);
    expect(fake.server.violations).toEqual([]);
  });
});

describe('OpenAI-compatible conversation engine: failures', () => {
  it('retries a 429 (honouring Retry-After) and a 503 before any text, then streams', async () => {
    fake.server.queue(
      { status: 429, message: 'Rate limit reached', headers: { 'retry-after': '1' } },
      { status: 503, message: 'model is loading' },
      { content: 'Thanks. What was the hardest bug?' },
    );
    const said = await collect(sentences(engine().reply(ctx(interview()))));
    expect(said).toEqual(['Thanks.', 'What was the hardest bug?']);
    expect(fake.server.calls).toHaveLength(3);
    expect(sleeps).toEqual([1000, 800]); // max(backoff 400, Retry-After 1 s), then 400·2
  });

  it('a rejected request (404 unknown model) is a ConversationError at once', async () => {
    const err = await collect(
      new OpenAIConversationEngine(openAIClient({ baseUrl: fake.server.baseUrl, apiKey }), {
        model: 'no-such-model',
      }).reply(ctx(interview())),
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConversationError);
    expect(err).toMatchObject({ code: 'model_error', partial: false });
    expect((err as Error).message).toMatch(/HTTP 404.*does not exist/);
    expect(fake.server.violations).toEqual(["The model 'no-such-model' does not exist"]);
    fake.server.violations.length = 0;
  });

  it('abandons a turn whose stream stalls past the budget, keeping what was said', async () => {
    fake.server.queue({
      content: '',
      chunks: ['Thanks, Ann. ', 'What was', ' the hardest bug?'],
      gate: new Promise(() => {}),
      gateAfter: 2,
    });
    const spoken: string[] = [];
    const err = await (async () => {
      for await (const s of sentences(engine({ turnTimeoutMs: 150 }).reply(ctx(interview())))) spoken.push(s);
    })().catch((e: unknown) => e);
    expect(spoken).toEqual(['Thanks, Ann.']);
    expect(err).toMatchObject({ code: 'model_timeout', partial: true });
  });

  it('gives up on a server that cannot be reached after the retries', async () => {
    const gone = await startFakeLlmServer();
    const url = gone.baseUrl;
    await gone.close();
    const err = await collect(engine({}, apiKey, url).reply(ctx(interview()))).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'model_throttled', partial: false });
    expect((err as Error).message).toMatch(/busy \(ConnectionError\) after 4 attempts/);
    expect(sleeps).toEqual([400, 800, 1600]);
  });
});

describe('ThinkingFilter', () => {
  it('passes text through, drops a leading think block split anywhere, and keeps a lone "<" start', () => {
    const run = (...parts: string[]) => {
      const f = new ThinkingFilter();
      return parts.map((p) => f.push(p)).join('') + f.end();
    };
    expect(run('Hello ', 'there.')).toBe('Hello there.');
    expect(run(' <think>', 'plan', '</think>Hi.')).toBe('Hi.');
    expect(run('<', 'think>a</', 'think', '>Hi.')).toBe('Hi.');
    expect(run('<b>', 'old')).toBe('<b>old');
    expect(run('<thi')).toBe('<thi');
    expect(run('<think>never closed')).toBe('');
  });
});
