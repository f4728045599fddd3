import {
  BedrockRuntimeClient,
  ConverseStreamCommand,
  type ConverseStreamCommandInput,
  type Message,
  ThrottlingException,
  ValidationException,
} from '@aws-sdk/client-bedrock-runtime';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConversationController, holdingLine, thinkingPauseMs } from '../../bot-task/conversation';
import {
  type BedrockConversationConfig,
  BedrockConversationEngine,
} from '../../core/adapters/bedrock/conversation-engine';
import { ConversationError } from '../../core/adapters/llm/conversation-engine';
import { listenSentinel, neutralAnswer, turnMarkers } from '../../core/adapters/llm/conversation-prompt';
import type { Utterance } from '../../core/bots/transcript';
import type { Logger } from '../../core/log';
import { type ConversationContext, sentences } from '../../core/ports/conversation-engine';
import { streamEvents, streamOutput, streamText, textEvents } from '../fixtures/conversation/fixtures';
import { FakeRoom } from '../support/fake-room';
import { elapse } from '../support/until';

const modelId = 'anthropic.claude-3-5-haiku-20241022-v1:0';
const bedrock = mockClient(BedrockRuntimeClient);

let sleeps: number[];

function engine(config: Partial<BedrockConversationConfig> = {}) {
  const client = new BedrockRuntimeClient({
    region: 'eu-west-1',
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  return new BedrockConversationEngine(client, {
    modelId,
    sleep: async (ms) => {
      sleeps.push(ms);
    },
    random: () => 1,
    ...config,
  });
}

const calls = () =>
  bedrock.commandCalls(ConverseStreamCommand).map((c) => c.args[0].input as ConverseStreamCommandInput);
const systemText = (input: ConverseStreamCommandInput) =>
  input.system?.map((b) => b.text ?? '').join('\n') ?? '';
const textOf = (m: Message) => m.content?.map((b) => b.text ?? '').join('') ?? '';
const messageChars = (input: ConverseStreamCommandInput) =>
  (input.messages ?? []).reduce((n, m) => n + textOf(m).length, 0);

const throttled = () =>
  new ThrottlingException({ $metadata: { httpStatusCode: 429 }, message: 'Too many requests, please wait.' });

let clock = Date.parse('2025-03-04T10:00:00Z');
const tick = () => {
  clock += 1000;
  return new Date(clock).toISOString();
};
const line = (text: string, who: 'ann' | 'bob' | 'bot' = 'ann'): Utterance => ({
  speaker: who === 'bot' ? 'Ava' : who === 'bob' ? 'Bob' : 'Ann',
  participant_id: who,
  started_at: tick(),
  text,
  ...(who === 'bot' ? { is_bot: true } : {}),
});

const prompt = `You are interviewing a candidate for a backend engineering role. Ask, one at a time:
1. Tell me about your last project
2. What was the hardest bug you fixed?
Then thank them and close.`;

const ctx = (transcript: Utterance[], more: Partial<ConversationContext> = {}): ConversationContext => ({
  botName: 'Ava',
  prompt,
  greeting: 'Hi, thanks for joining',
  transcript,
  ...more,
});

const interview = () => [
  line("Hello, I'm Ava. Thanks for joining. Tell me about your last project?", 'bot'),
  line('Sure.'),
  line('I moved our billing system to three services without downtime.'),
];

async function collect(it: AsyncIterable<string>): Promise<string[]> {
  const out: string[] = [];
  for await (const c of it) out.push(c);
  return out;
}

/** Mimics the ConversationController: speaks sentences as they complete, logs a failed turn, keeps going. */
function consumer() {
  const spoken: string[] = [];
  const failures: unknown[] = [];
  return {
    spoken,
    failures,
    async turn(chunks: AsyncIterable<string>) {
      try {
        for await (const s of sentences(chunks)) spoken.push(s);
      } catch (err) {
        failures.push(err);
      }
    },
  };
}

function silentLog(): Logger & { warns: string[] } {
  const warns: string[] = [];
  const log: Logger & { warns: string[] } = {
    warns,
    debug: () => {},
    info: () => {},
    warn: (msg) => {
      warns.push(msg);
    },
    error: () => {},
    child: () => log,
  };
  return log;
}

beforeEach(() => {
  bedrock.reset();
  sleeps = [];
});
afterEach(() => bedrock.reset());

describe('Bedrock conversation engine: streaming', () => {
  it('yields the text deltas in order, the first before the stream has finished', async () => {
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let finished = false;
    const events = streamEvents('reply');
    const lastDelta = events.findLastIndex((e) => e.contentBlockDelta);
    bedrock.on(ConverseStreamCommand).resolves(
      streamOutput('reply', {
        gate,
        gateAt: lastDelta,
        onDone: () => {
          finished = true;
        },
      }),
    );

    const it = engine().reply(ctx(interview()))[Symbol.asyncIterator]();
    const first = await it.next();
    expect(first).toEqual({ done: false, value: 'Thanks' });
    const second = await it.next();
    expect(second.value).toBe(', Ann. A billing');
    expect(finished).toBe(false); // the model is still "generating" the last events

    release();
    const rest: string[] = [];
    for (let r = await it.next(); !r.done; r = await it.next()) rest.push(r.value);
    expect(finished).toBe(true);
    expect(rest).toEqual([
      ' migration with no downtime',
      ' is impressive. What was',
      ' the hardest bug',
      ' you fixed along the way?',
    ]);
    expect([first.value, second.value, ...rest].join('')).toBe(streamText('reply'));
    expect(calls()).toHaveLength(1);
  });

  it('a stream that is only the listen sentinel, or empty, yields nothing', async () => {
    expect(streamText('listen')).toBe(listenSentinel);
    bedrock
      .on(ConverseStreamCommand)
      .resolvesOnce(streamOutput('listen'))
      .resolvesOnce(streamOutput('empty'))
      .resolvesOnce(streamOutput(textEvents('  ', ' [listen]', '\n')));
    const e = engine();
    expect(await collect(e.reply(ctx(interview())))).toEqual([]);
    expect(await collect(e.reply(ctx(interview())))).toEqual([]);
    expect(await collect(e.reply(ctx(interview())))).toEqual([]);
    expect(calls()).toHaveLength(3);
  });

  it('drops a leading "<bot name>:" and a sentinel after spoken text, holding back only what could be one', async () => {
    bedrock
      .on(ConverseStreamCommand)
      .resolvesOnce(streamOutput(textEvents('Av', 'a: Great', ', thanks.')))
      .resolvesOnce(streamOutput(textEvents('Okay, take your time.', ' [LIS', 'TEN]')))
      .resolvesOnce(streamOutput(textEvents('Costs [3', '] dollars.')));
    const e = engine();
    expect(await collect(e.reply(ctx(interview())))).toEqual(['Great', ', thanks.']);
    expect((await collect(e.reply(ctx(interview())))).join('')).toBe('Okay, take your time.');
    expect((await collect(e.reply(ctx(interview())))).join('')).toBe('Costs [3] dollars.');
  });

  it('stops the model stream when the consumer stops listening (barge-in)', async () => {
    bedrock.on(ConverseStreamCommand).resolves(streamOutput('reply'));
    for await (const chunk of engine().reply(ctx(interview()))) {
      expect(chunk).toBe('Thanks');
      break;
    }
    const args = bedrock.commandCalls(ConverseStreamCommand)[0]!.args as unknown[];
    const options = args[1] as { abortSignal?: AbortSignal };
    expect(options.abortSignal?.aborted).toBe(true);
  });
});

describe('Bedrock conversation engine: the request', () => {
  it('sends bot_prompt and the speaking rules as the system prompt, and the transcript as alternating turns', async () => {
    bedrock.on(ConverseStreamCommand).resolves(streamOutput('reply'));
    const transcript = [
      ...interview(),
      line('Oh, and Bob helped.'),
      line('Yes, I did the data migration.', 'bob'),
    ];
    await collect(engine().reply(ctx(transcript)));

    const [input] = calls();
    expect(input).toMatchObject({ modelId, inferenceConfig: { maxTokens: 300, temperature: 0.5 } });
    const system = systemText(input!);
    expect(system).toContain(prompt);
    expect(system).toContain('You are Ava');
    expect(system).toMatch(/one question at a time/i);
    expect(system).toMatch(/no markdown, lists, headings, emoji/i);
    expect(system).toMatch(/never write what a participant says/i);
    expect(system).toContain(`answer exactly ${listenSentinel}`);
    expect(system).toContain(`Begin every reply with one mark saying whether the participant has finished`);
    expect(system).toMatch(/end politely/);
    expect(system).toContain('A line of yours that ends in "…" was cut off');
    expect(system).not.toMatch(/earlier conversation omitted/i);
    expect(system).not.toMatch(/opening line/i);

    const messages = input!.messages!;
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(textOf(messages[0]!)).toBe('(The meeting has started.)');
    expect(textOf(messages[1]!)).toBe(transcript[0]!.text); // the bot's line, as said, no name
    expect(textOf(messages[2]!)).toBe(
      [
        'Ann: Sure.',
        'Ann: I moved our billing system to three services without downtime.',
        'Ann: Oh, and Bob helped.',
        'Bob: Yes, I did the data migration.',
      ].join('\n'),
    );
  });

  it('greet() asks for the opening line, with bot_greeting as the words to say or as an instruction', async () => {
    bedrock.on(ConverseStreamCommand).callsFake(() => streamOutput('greeting'));
    const e = engine({ maxTokens: 200, temperature: 0.2 });
    const said = await collect(e.greet(ctx([])));
    expect(said.join('')).toBe(streamText('greeting'));
    await collect(
      e.greet(ctx([line('Hi, can you hear me?')], { greeting: 'Greet them warmly in one sentence' })),
    );
    await collect(e.greet(ctx([], { greeting: undefined, prompt: undefined })));

    const [literal, instruction, plain] = calls();
    expect(literal).toMatchObject({ modelId, inferenceConfig: { maxTokens: 200, temperature: 0.2 } });
    expect(systemText(literal!)).toContain('exactly these words: "Hi, thanks for joining."');
    expect(systemText(literal!)).toContain(prompt);
    expect(literal!.messages).toEqual([
      { role: 'user', content: [{ text: '(You have just joined the call. Say your opening line now.)' }] },
    ]);
    expect(systemText(instruction!)).toContain('How to greet: Greet them warmly in one sentence');
    expect(instruction!.messages!.map((m) => m.role)).toEqual(['user']);
    expect(textOf(instruction!.messages![0]!)).toMatch(/^Ann: Hi, can you hear me\?\n\(You have just joined/);
    expect(systemText(plain!)).toMatch(/introduce yourself as Ava/);
    expect(systemText(plain!)).toMatch(/No specific instructions/);
  });

  it('a replacement’s greet() asks for one apology and the conversation taken up where it stands, not a new greeting', async () => {
    bedrock.on(ConverseStreamCommand).callsFake(() => streamOutput('greeting'));
    const e = engine({ maxTokens: 200, temperature: 0.2 });
    const asked = { ...line('Could you tell me about your last project?'), speaker: 'Ava', is_bot: true };
    await collect(e.greet({ ...ctx([asked, line('A billing system.')]), rejoining: true }));
    const [request] = calls();
    const system = systemText(request!);
    expect(system).toMatch(/lost your connection to the call for a moment and have just rejoined/);
    expect(system).toMatch(/apologise once/);
    expect(system).toMatch(/Do not greet or introduce yourself again/);
    expect(system).not.toMatch(/introduce yourself as Ava\./);
    expect(textOf(request!.messages!.at(-1)!)).toMatch(
      /\(You have just rejoined the call\. Say your line now\.\)$/,
    );
  });

  it('takes words said over its question as the answer when they answer it, and never asks to be let finish', async () => {
    bedrock.on(ConverseStreamCommand).callsFake(() => streamOutput('greeting'));
    await collect(engine().reply(ctx([line('A billing system.')])));
    const system = systemText(calls()[0]!);
    expect(system).toMatch(/People often answer before a question is finished/);
    expect(system).toMatch(/Never ask anyone to let you finish/);
    expect(system).toMatch(/Short acknowledgements \("sure", "okay", "mm-hmm"\) are not answers/);
  });

  it('keeps only the most recent lines of a long meeting within maxContextChars, starting with a user turn', async () => {
    bedrock.on(ConverseStreamCommand).callsFake(() => streamOutput('reply'));
    const transcript: Utterance[] = [];
    for (let i = 0; i < 2000; i++) {
      transcript.push(
        i % 3 === 2
          ? line(`Question ${i}: could you say more about part ${i} of the project?`, 'bot')
          : line(
              `This is answer line ${i}, about the design choices and the trade-offs we made.`,
              i % 2 ? 'bob' : 'ann',
            ),
      );
    }
    transcript.push(line('And that is the last thing I wanted to say.'));
    const total = transcript.reduce((n, u) => n + u.text.length, 0);
    expect(total).toBeGreaterThan(100_000);

    await collect(engine().reply(ctx(transcript)));
    await collect(engine({ maxContextChars: 2000 }).reply(ctx(transcript)));
    for (const [input, budget] of calls().map((c, i) => [c, i === 0 ? 24_000 : 2000] as const)) {
      expect(messageChars(input)).toBeLessThanOrEqual(budget);
      expect(messageChars(input)).toBeGreaterThan(budget * 0.8);
      const messages = input.messages!;
      expect(messages[0]!.role).toBe('user');
      messages.forEach((m, i) => {
        expect(m.role).toBe(i % 2 === 0 ? 'user' : 'assistant');
      });
      expect(textOf(messages.at(-1)!)).toMatch(/And that is the last thing I wanted to say\.$/);
      expect(textOf(messages[0]!)).not.toContain('answer line 0,');
      expect(systemText(input)).toMatch(/Earlier conversation omitted/);
    }
  });

  it('keeps the end of a single participant line longer than the budget', async () => {
    bedrock.on(ConverseStreamCommand).callsFake(() => streamOutput('reply'));
    const long = `${'blah '.repeat(2000)}so what do you think?`;
    await collect(engine({ maxContextChars: 500 }).reply(ctx([...interview(), line(long)])));
    const [input] = calls();
    expect(messageChars(input!)).toBeLessThanOrEqual(500);
    expect(input!.messages!.map((m) => m.role)).toEqual(['user']);
    expect(textOf(input!.messages![0]!)).toMatch(/^….*so what do you think\?$/);
  });

  it('does not call the model when the bot spoke last, or nobody has spoken', async () => {
    bedrock.on(ConverseStreamCommand).callsFake(() => streamOutput('reply'));
    const e = engine();
    expect(await collect(e.reply(ctx([...interview(), line('Thanks, go on.', 'bot')])))).toEqual([]);
    expect(await collect(e.reply(ctx([])))).toEqual([]);
    expect(calls()).toHaveLength(0);
  });
});

describe('Bedrock conversation engine: failures', () => {
  it('retries a throttled request with backoff before any text, then streams', async () => {
    bedrock
      .on(ConverseStreamCommand)
      .rejectsOnce(throttled())
      .resolvesOnce(streamOutput('throttled')) // the throttling arrives as the first stream event
      .resolvesOnce(streamOutput('reply'));
    const said = await collect(engine({ backoffBaseMs: 100 }).reply(ctx(interview())));
    expect(said.join('')).toBe(streamText('reply'));
    expect(calls()).toHaveLength(3);
    expect(sleeps).toEqual([100, 200]);
  });

  it('gives up after maxThrottleRetries with a ConversationError', async () => {
    bedrock.on(ConverseStreamCommand).rejects(throttled());
    const err = await collect(engine({ random: () => 0 }).reply(ctx(interview()))).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConversationError);
    expect(err).toMatchObject({ code: 'model_throttled', partial: false });
    expect((err as Error).message).toMatch(/busy \(ThrottlingException\) after 4 attempts\.$/);
    expect(calls()).toHaveLength(4);
    expect(sleeps).toEqual([200, 400, 800]); // 50% jitter of 400·2ⁿ
  });

  it('a rejected request is a ConversationError at once, and the next turn still works', async () => {
    bedrock
      .on(ConverseStreamCommand)
      .rejectsOnce(
        new ValidationException({ $metadata: { httpStatusCode: 400 }, message: 'The model ID is invalid.' }),
      )
      .resolvesOnce(streamOutput('reply'));
    const e = engine();
    const c = consumer();
    await c.turn(e.reply(ctx(interview())));
    expect(c.failures).toHaveLength(1);
    expect(c.failures[0]).toBeInstanceOf(ConversationError);
    expect(c.failures[0]).toMatchObject({ code: 'model_error', partial: false });
    expect((c.failures[0] as Error).message).toMatch(/ValidationException: The model ID is invalid/);
    expect(sleeps).toEqual([]);
    expect(c.spoken).toEqual([]);

    await c.turn(e.reply(ctx(interview())));
    expect(c.spoken).toEqual([
      'Thanks, Ann.',
      'A billing migration with no downtime is impressive.',
      'What was the hardest bug you fixed along the way?',
    ]);
  });

  it('an error mid-stream ends the reply with a ConversationError and is not retried', async () => {
    const sdkStyle = new Error('Model stream error');
    sdkStyle.name = 'ThrottlingException'; // thrown by the SDK's event stream after text: too late to retry
    bedrock
      .on(ConverseStreamCommand)
      .resolvesOnce(streamOutput('error-mid'))
      .resolvesOnce(streamOutput(textEvents('Right. ', 'So'), { error: sdkStyle }));
    const e = engine();
    const c = consumer();
    await c.turn(e.reply(ctx(interview())));
    await c.turn(e.reply(ctx(interview())));
    expect(c.spoken).toEqual(['Sure.', 'Right.']); // what was complete was spoken; the cut-off rest was not
    expect(c.failures).toHaveLength(2);
    expect(c.failures[0]).toMatchObject({ code: 'model_error', partial: true });
    expect((c.failures[0] as Error).message).toMatch(/failed mid-reply \(ModelStreamErrorException/);
    expect(c.failures[1]).toMatchObject({ code: 'model_error', partial: true });
    expect(calls()).toHaveLength(2);
    expect(sleeps).toEqual([]);
  });
});

describe('Bedrock conversation engine in the ConversationController', () => {
  it('a failed reply gets the holding line and is retried; the retry answers, and the model never sees the holding line', async () => {
    const heard: Utterance[] = [];
    const room = new FakeRoom([{ participantId: 'ann', name: 'Ann', isBot: false }]);
    const log = silentLog();
    bedrock
      .on(ConverseStreamCommand)
      .resolvesOnce(streamOutput('greeting'))
      .rejectsOnce(
        new ValidationException({ $metadata: { httpStatusCode: 400 }, message: 'Malformed input.' }),
      )
      .resolvesOnce(streamOutput('reply'));
    const controller = new ConversationController(
      room,
      engine({ log }),
      { botName: 'Ava', prompt, greeting: 'Hi, thanks for joining', endOfTurnMs: 5, retryBackoffMs: 10 },
      () => heard,
      log,
    );
    const annSays = (text: string) => {
      heard.push({ speaker: 'Ann', participant_id: 'ann', started_at: new Date().toISOString(), text });
      room.say('ann', text);
    };

    controller.start();
    await vi.waitFor(() => expect(room.spoken).toHaveLength(3));
    expect(room.spoken[0]).toBe("Hello everyone, I'm Ava.");

    annSays('I built a billing system.');
    await vi.waitFor(() => expect(room.spoken).toHaveLength(7));
    expect(log.warns).toContain('conversation model failed; retrying the turn');
    expect(room.spoken.slice(3)).toEqual([
      holdingLine,
      'Thanks, Ann.',
      'A billing migration with no downtime is impressive.',
      'What was the hardest bug you fixed along the way?',
    ]);
    controller.stop();

    const last = calls().at(-1)!;
    expect(last.messages!.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(textOf(last.messages![2]!)).toBe('Ann: I built a billing system.');
    expect(JSON.stringify(last.messages)).not.toContain(holdingLine);
  });
});

describe('Bedrock conversation engine: the bot keeps track of its own questions', () => {
  /** A meeting whose first part (the bot's first two questions) falls out of a 2000-character window. */
  function longInterview(): Utterance[] {
    const transcript = [
      line("Hello, I'm Ava. Thanks for joining.", 'bot'),
      line('Tell me about your last project.', 'bot'),
      line('I moved our billing system to three services without downtime.'),
      line('What was the hardest bug you fixed?', 'bot'),
      line('A race in the invoice queue that doubled some charges.'),
    ];
    for (let i = 0; i < 40; i++) {
      transcript.push(
        i % 2
          ? line('I see, go on.', 'bot')
          : line(
              `More detail number ${i} about the queue, the retries and how we found the duplicate charges.`,
            ),
      );
    }
    transcript.push(line('So that was the whole story.'));
    return transcript;
  }

  it('lists its questions from the dropped part and marks the agenda items asked and answered', async () => {
    bedrock.on(ConverseStreamCommand).callsFake(() => streamOutput('reply'));
    await collect(engine({ maxContextChars: 2000 }).reply(ctx(longInterview())));
    const [input] = calls();
    const shown = input!.messages!.map(textOf).join('\n');
    expect(shown).not.toContain('hardest bug'); // the window dropped the lines…
    const system = systemText(input!);
    // …but not the bot's knowledge that it asked them.
    expect(system).toContain(
      'Questions you already asked in the omitted part (do not ask them again):\n- Tell me about your last project.\n- What was the hardest bug you fixed?',
    );
    expect(system).toContain('1. Tell me about your last project? (asked and answered)');
    expect(system).toContain('2. What was the hardest bug you fixed? (asked and answered)');
    expect(system).toMatch(/Never ask a question you have already asked in this meeting/);
  });

  it('shows the agenda with nothing marked before the bot has asked, and no omitted-part list when nothing was dropped', async () => {
    bedrock.on(ConverseStreamCommand).callsFake(() => streamOutput('greeting'));
    await collect(engine().greet(ctx([])));
    const system = systemText(calls()[0]!);
    expect(system).toContain(
      'not a replacement for your instructions: where it misses, adds or misreads something, follow your instructions):\n1. Tell me about your last project?\n2. What was the hardest bug you fixed?\n',
    );
    expect(system).not.toMatch(/already asked\)/);
    expect(system).not.toMatch(/omitted/i);
  });

  it('marks the item it is waiting on while the answer has not come', async () => {
    bedrock.on(ConverseStreamCommand).callsFake(() => streamOutput('reply'));
    await collect(
      engine().reply(ctx([line("Hello, I'm Ava. Tell me about your last project?", 'bot'), line('Sure.')])),
    );
    expect(systemText(calls()[0]!)).toContain(
      '1. Tell me about your last project? (asked; waiting for the answer)\n2. What was the hardest bug you fixed?\n',
    );
  });

  it('keeps the list of earlier questions within a sixth of the context budget, newest kept', async () => {
    bedrock.on(ConverseStreamCommand).callsFake(() => streamOutput('reply'));
    const transcript: Utterance[] = [];
    for (let i = 0; i < 600; i++) {
      transcript.push(line(`Question ${i}: what happened in week ${i} of the project?`, 'bot'));
      transcript.push(line(`In week ${i} we worked on the migration and the tests.`));
    }
    await collect(engine({ maxContextChars: 6000 }).reply(ctx(transcript)));
    const system = systemText(calls()[0]!);
    const listed = system.slice(system.indexOf('Questions you already asked')).split('\n').slice(1);
    expect(listed.join('\n').length).toBeLessThanOrEqual(1000);
    expect(listed.length).toBeGreaterThan(10);
    const shown = calls()[0]!.messages!.map(textOf).join('\n');
    const oldestShown = Number(/Question (\d+):/.exec(shown)![1]);
    // The newest dropped question is listed; the oldest ones gave way.
    expect(listed.at(-1)).toBe(
      `- Question ${oldestShown - 1}: what happened in week ${oldestShown - 1} of the project?`,
    );
    expect(system).not.toContain('Question 0:');
  });
});

describe('Bedrock conversation engine: a turn has a time budget', () => {
  const never = new Promise<void>(() => {});

  it('abandons a turn whose model does not answer in time: no text, the stream aborted, the next turn works', async () => {
    bedrock
      .on(ConverseStreamCommand)
      .resolvesOnce(streamOutput('reply', { gate: never, gateAt: 1 }))
      .resolvesOnce(streamOutput('reply'));
    const log = silentLog();
    const e = engine({ turnTimeoutMs: 80, log });
    const c = consumer();
    const started = Date.now();
    await c.turn(e.reply(ctx(interview())));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(c.spoken).toEqual([]);
    expect(c.failures[0]).toBeInstanceOf(ConversationError);
    expect(c.failures[0]).toMatchObject({ code: 'model_timeout', partial: false });
    expect((c.failures[0] as Error).message).toMatch(/did not answer within the turn's 0\.1 s budget\.$/);
    expect(log.warns).toContain('conversation turn abandoned at its time budget');
    const args = bedrock.commandCalls(ConverseStreamCommand)[0]!.args as unknown[];
    const options = args[1] as { abortSignal?: AbortSignal };
    expect(options.abortSignal?.aborted).toBe(true);

    await c.turn(e.reply(ctx(interview())));
    expect(c.spoken).toHaveLength(3);
  });

  it('a reply that stalls mid-way keeps what was said and drops the unfinished sentence', async () => {
    const events = streamEvents('reply');
    const lastDelta = events.findLastIndex((e) => e.contentBlockDelta);
    bedrock.on(ConverseStreamCommand).resolves(streamOutput('reply', { gate: never, gateAt: lastDelta }));
    const c = consumer();
    await c.turn(engine({ turnTimeoutMs: 80 }).reply(ctx(interview())));
    expect(c.spoken).toEqual(['Thanks, Ann.', 'A billing migration with no downtime is impressive.']);
    expect(c.failures[0]).toMatchObject({ code: 'model_timeout', partial: true });
    expect((c.failures[0] as Error).message).toMatch(/stalled mid-reply.*cut short/);
  });

  it('counts only time spent waiting on the model, not the time the bot spends speaking', async () => {
    bedrock.on(ConverseStreamCommand).resolves(streamOutput('reply'));
    const spoken: string[] = [];
    for await (const s of sentences(engine({ turnTimeoutMs: 100 }).reply(ctx(interview())))) {
      spoken.push(s);
      await elapse(80); // the voice's speaking time, the scenario: 3 × 80 ms > the 100 ms budget
    }
    expect(spoken).toHaveLength(3);
  });

  it('does not back off past the budget: a throttled model is given up on when the next wait would not fit', async () => {
    bedrock.on(ConverseStreamCommand).rejects(throttled());
    const err = await collect(
      engine({ turnTimeoutMs: 1000, backoffBaseMs: 400 }).reply(ctx(interview())),
    ).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'model_throttled', partial: false });
    expect(sleeps).toEqual([400]); // 400 spent; 800 more would not fit in the remaining ~600 ms
    expect(calls()).toHaveLength(2);
  });
});

describe('Bedrock conversation engine: questions its instructions do not answer', () => {
  it('has a rule: the closing or next steps from the prompt if stated, else a neutral line, never invented', async () => {
    bedrock.on(ConverseStreamCommand).callsFake(() => streamOutput('reply'));
    await collect(engine().reply(ctx([...interview(), line('Great. So what are the next steps?')])));
    const system = systemText(calls()[0]!);
    expect(system).toMatch(
      /When a participant asks something your instructions do not tell you \(such as what the next steps are[^)]*\), never invent an answer\./,
    );
    expect(system).toContain(
      'If your instructions state it (for example the closing or next steps to tell them), say that',
    );
    expect(system).toContain(`otherwise say: "${neutralAnswer}"`);
  });

  it("gives the customer's closing from the prompt as the answer about next steps, when the prompt states one", async () => {
    bedrock.on(ConverseStreamCommand).callsFake(() => streamOutput('reply'));
    const withClosing = `${prompt}\nAt the end, tell them the recruiter will call them within a week.`;
    await collect(
      engine().reply(ctx([...interview(), line('What are the next steps?')], { prompt: withClosing })),
    );
    const system = systemText(calls()[0]!);
    expect(system).toContain(
      'never invent an answer. About next steps or what happens after the meeting, say what your instructions give: "The recruiter will call you within a week."',
    );
    expect(system).toContain(`For anything else your instructions do not state, say: "${neutralAnswer}"`);
    expect(system).toContain(
      'The closing your instructions give, as the rules read it: "The recruiter will call you within a week."',
    );
  });
});

describe('Bedrock conversation engine: the model judges whether the person finished', () => {
  const { complete, short, long } = turnMarkers;
  const cutOff = () => [
    line("Hello, I'm Ava. Tell me about your last project?", 'bot'),
    line('I moved our billing system to three services and'),
  ];

  it('asks for the mark in replies only; after the person stopped mid-thought it asks for an answer instead', async () => {
    bedrock.on(ConverseStreamCommand).resolves(streamOutput('reply'));
    const e = engine();
    await collect(e.reply(ctx(cutOff())));
    await collect(e.greet(ctx([])));
    await collect(e.reply(ctx(cutOff(), { stoppedMidThought: true })));
    const [reply, greet, again] = calls().map(systemText);
    for (const mark of [complete, short, long]) expect(reply).toContain(mark);
    expect(reply).not.toMatch(/stopped speaking a while ago/);
    expect(greet).not.toContain(short);
    expect(again).not.toContain(short);
    expect(again).toMatch(/stopped speaking a while ago without finishing their thought. Answer now/);
  });

  it('an unfinished mark yields nothing and tells which wait; a complete one is never spoken', async () => {
    bedrock
      .on(ConverseStreamCommand)
      .resolvesOnce(streamOutput(textEvents(' ', short)))
      .resolvesOnce(streamOutput(textEvents(`${long}\n`)))
      .resolvesOnce(streamOutput(textEvents(complete, ' Thanks', ', Ann.')))
      .resolvesOnce(streamOutput(textEvents(short, ' Take your time.')));
    const e = engine();
    const verdicts: string[] = [];
    const judged = (more: Partial<ConversationContext> = {}) =>
      ctx(cutOff(), { onUnfinished: (w) => verdicts.push(w), ...more });
    expect(await collect(e.reply(judged()))).toEqual([]);
    expect(await collect(e.reply(judged()))).toEqual([]);
    expect(verdicts).toEqual(['short', 'long']);
    expect((await collect(e.reply(judged()))).join('')).toBe('Thanks, Ann.');
    // Asked again after the silence: a mark is not honoured, the words are spoken.
    expect((await collect(e.reply(judged({ stoppedMidThought: true })))).join('')).toBe('Take your time.');
    expect(verdicts).toEqual(['short', 'long']);
  });

  it('in the controller: nothing is said to a thought cut off, and after her silence the bot answers', async () => {
    const heard: Utterance[] = [];
    const room = new FakeRoom([{ participantId: 'ann', name: 'Ann', isBot: false }]);
    bedrock
      .on(ConverseStreamCommand)
      .resolvesOnce(streamOutput(textEvents('Hello, I am Ava. Tell me about your last project?')))
      .resolvesOnce(streamOutput(textEvents(short)))
      .resolvesOnce(streamOutput(textEvents('Take your time. What happened next?')));
    const controller = new ConversationController(
      room,
      engine(),
      { botName: 'Ava', prompt, endOfTurnMs: 5, turnTaking: { incompleteMs: 40 } },
      () => heard,
      silentLog(),
    );
    controller.start();
    await vi.waitFor(() => expect(room.spoken).toHaveLength(2));
    heard.push({
      speaker: 'Ann',
      participant_id: 'ann',
      started_at: new Date().toISOString(),
      text: 'I moved it and',
    });
    room.say('ann', 'I moved it and');
    await vi.waitFor(() => expect(room.spoken).toHaveLength(4));
    controller.stop();
    expect(room.spoken.slice(2)).toEqual(['Take your time.', 'What happened next?']);
    const [, judged, again] = calls();
    expect(systemText(judged!)).toContain(short);
    expect(systemText(again!)).toMatch(/stopped speaking a while ago/);
    // The silent verdict left no line of the bot's: the second call shows the conversation as it was.
    expect(again!.messages).toEqual(judged!.messages);
  });

  it('a failure of the call after her silence gets the holding line, and the retry is still told she stopped', async () => {
    const heard: Utterance[] = [];
    const room = new FakeRoom([{ participantId: 'ann', name: 'Ann', isBot: false }]);
    bedrock
      .on(ConverseStreamCommand)
      .resolvesOnce(streamOutput(textEvents('Hello, I am Ava. Tell me about your last project?')))
      .resolvesOnce(streamOutput(textEvents(long)))
      .rejectsOnce(
        new ValidationException({ $metadata: { httpStatusCode: 400 }, message: 'Malformed input.' }),
      )
      .resolvesOnce(streamOutput(textEvents(`${complete} Take your time.`)));
    const controller = new ConversationController(
      room,
      engine(),
      { botName: 'Ava', prompt, endOfTurnMs: 5, turnTaking: { incompleteMs: 40 }, retryBackoffMs: 10 },
      () => heard,
      silentLog(),
    );
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    try {
      controller.start();
      await vi.advanceTimersByTimeAsync(50);
      heard.push({
        speaker: 'Ann',
        participant_id: 'ann',
        started_at: new Date().toISOString(),
        text: 'Hmm, let me think.',
      });
      room.say('ann', 'Hmm, let me think.');
      await vi.advanceTimersByTimeAsync(thinkingPauseMs - 100);
      expect(calls()).toHaveLength(2);
      expect(room.spoken).toHaveLength(2);
      await vi.advanceTimersByTimeAsync(1_000);
    } finally {
      vi.useRealTimers();
      controller.stop();
    }
    expect(room.spoken.slice(2)).toEqual([holdingLine, 'Take your time.']);
    expect(
      calls()
        .slice(2)
        .map((c) => /stopped speaking a while ago/.test(systemText(c))),
    ).toEqual([true, true]);
  });
});
