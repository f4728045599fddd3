// The bot never goes mute: a failing conversation model gets one holding line and retries with backoff,
// then the local engine after three failures in a row; a line the voice cannot speak is retried once, then the bot goes
// on in text only. Each fallback is a warning, a metric and a log line. Fake timers, and the backoff's jitter at its longest: the waits are asserted exactly.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConversationController, holdingLine } from '../../bot-task/conversation';
import { SessionWarnings } from '../../bot-task/session-warnings';
import { MemoryMetrics } from '../../core/adapters/metrics/memory-metrics';
import type { SessionWarning } from '../../core/bots/session';
import type { Utterance } from '../../core/bots/transcript';
import { metricNames, useMetricsSink } from '../../core/metrics';
import type { ConversationEngine } from '../../core/ports/conversation-engine';
import type { SayOptions } from '../../core/ports/speech';
import { FakeRoom } from '../support/fake-room';
import { recordingLogger } from '../support/recording-logger';

const prompt = 'Ask about their last project and how they test code.';
const localGreeting =
  "Hello Ann, I'm Iris. I have 2 questions for you. Could you tell me about your last project?";

/** A model that fails the turns `failing` says (numbered from 1) and otherwise answers with `answer`. */
function flakyModel(
  failing: (call: number) => 'start' | 'mid-stream' | false,
  answer = 'Hello from the model.',
) {
  const calls: number[] = [];
  async function* turn(): AsyncGenerator<string> {
    calls.push(Date.now());
    const how = failing(calls.length);
    if (how === 'start')
      throw Object.assign(new Error('ThrottlingException: Too many requests'), { code: 'model_throttled' });
    if (how === 'mid-stream') {
      yield 'Let me see. ';
      throw Object.assign(new Error('ModelStreamErrorException: stream broke'), { code: 'model_error' });
    }
    yield answer;
  }
  const engine: ConversationEngine = { greet: turn, reply: turn };
  return { engine, calls };
}

let metrics: MemoryMetrics;
let lines: string[];
let heard: Utterance[];
let warnings: SessionWarning[];
let started: number;

beforeEach(() => {
  vi.useFakeTimers();
  // The backoff's jitter draws its longest wait, so the retries come at the base's doubling exactly.
  vi.spyOn(Math, 'random').mockReturnValue(1);
  started = Date.now();
  metrics = new MemoryMetrics();
  useMetricsSink(metrics);
  lines = [];
  heard = [];
  warnings = [];
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
  useMetricsSink(undefined);
});

function controller(room: FakeRoom, engine: ConversationEngine, inForce: SessionWarning[] = []) {
  const c = new ConversationController(
    room,
    engine,
    {
      botName: 'Iris',
      prompt,
      // Turn-taking is not what these tests are about: every answer is taken 10 ms after its final words.
      endOfTurnMs: 10,
      turnTaking: { mode: 'fixed' },
      maxModelFailures: 3,
      retryBackoffMs: 1_000,
      speechRetryDelayMs: 500,
    },
    () => heard,
    recordingLogger(lines),
    { onWarning: (w) => warnings.push(w), inForce },
  );
  c.start();
  return c;
}

function annSays(room: FakeRoom, text: string) {
  heard.push({ speaker: 'Ann', participant_id: 'ann', started_at: new Date().toISOString(), text });
  room.say('ann', text);
}

describe('a failing conversation model', () => {
  it('gets one holding line, retries after 1 s and 2 s, then the local engine finishes the interview, with a warning', async () => {
    const room = new FakeRoom([{ participantId: 'ann', name: 'Ann' }]);
    const model = flakyModel(() => 'start');
    const c = controller(room, model.engine);
    await vi.advanceTimersByTimeAsync(0);
    expect(room.spoken).toEqual([holdingLine]);
    await vi.advanceTimersByTimeAsync(999);
    expect(model.calls).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(model.calls).toHaveLength(2);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(model.calls.map((t) => t - started)).toEqual([0, 1_000, 3_000]);
    // The third failure hands the same turn to the local engine at once; the holding line was said only once.
    expect(room.spoken).toEqual([holdingLine, ...splitSentences(localGreeting)]);
    expect(warnings).toEqual([
      {
        code: 'conversation_model_fallback',
        message: expect.stringMatching(
          /^The conversation model failed 3 times in a row \(last: ThrottlingException: Too many requests\); the bot finished the interview with the local engine/,
        ),
      },
    ]);
    expect(metrics.named(metricNames.conversationModelFailures, { error: 'model_throttled' })).toHaveLength(
      3,
    );
    expect(lines).toContain('warn conversation model failed; the local engine finishes the interview');

    // The rest of the session is the local engine's: the model is not asked again.
    await vi.advanceTimersByTimeAsync(1_000);
    annSays(room, 'I built a billing system that moved invoices from a monolith to a queue.');
    await vi.advanceTimersByTimeAsync(20);
    expect(room.spoken.at(-1)).toMatch(/test code\?$/);
    expect(model.calls).toHaveLength(3);
    c.stop();
  });

  it('a success ends the streak: two failures, an answer, two failures, an answer — never the fallback', async () => {
    const room = new FakeRoom([{ participantId: 'ann', name: 'Ann' }]);
    const model = flakyModel((n) => (n === 1 || n === 2 || n === 4 || n === 5 ? 'start' : false));
    const c = controller(room, model.engine);
    await vi.advanceTimersByTimeAsync(3_000);
    expect(room.spoken).toEqual([holdingLine, 'Hello from the model.']);
    annSays(room, 'Hi there.');
    await vi.advanceTimersByTimeAsync(10 + 3_000);
    expect(model.calls).toHaveLength(6);
    // A new streak, a new holding line.
    expect(room.spoken).toEqual([holdingLine, 'Hello from the model.', holdingLine, 'Hello from the model.']);
    expect(warnings).toEqual([]);
    expect(lines.filter((l) => l === 'info conversation model answered again')).toHaveLength(2);
    c.stop();
  });

  it('replies queued while a turn backs off are not answered again once the model recovers', async () => {
    const room = new FakeRoom([{ participantId: 'ann', name: 'Ann' }]);
    // The greeting answers; the first reply fails twice, then the model recovers.
    const model = flakyModel((n) => (n === 2 || n === 3 ? 'start' : false));
    const c = controller(room, model.engine);
    await vi.advanceTimersByTimeAsync(0);
    expect(room.spoken).toEqual(['Hello from the model.']);
    annSays(room, 'I built a billing system.');
    await vi.advanceTimersByTimeAsync(10);
    // During the backoff Ann goes on, twice: each final line queues a reply.
    annSays(room, 'It moved invoices to a queue.');
    await vi.advanceTimersByTimeAsync(100);
    annSays(room, 'And it cut costs.');
    await vi.advanceTimersByTimeAsync(10 + 3_000);
    // The retried turn read all three lines and answered once; the two queued replies had nothing new to answer.
    expect(room.spoken).toEqual(['Hello from the model.', holdingLine, 'Hello from the model.']);
    expect(model.calls).toHaveLength(4);
    // Something new said later is answered as always.
    annSays(room, 'We shipped it in May.');
    await vi.advanceTimersByTimeAsync(20);
    expect(model.calls).toHaveLength(5);
    expect(room.spoken.at(-1)).toBe('Hello from the model.');
    c.stop();
  });

  it('a failure mid-reply counts too; the engine is shown what was said before the break, never the holding line', async () => {
    const room = new FakeRoom([{ participantId: 'ann', name: 'Ann' }]);
    const seen: string[][] = [];
    let call = 0;
    const engine: ConversationEngine = {
      async *greet(ctx) {
        seen.push(ctx.transcript.map((u) => u.text));
        call++;
        yield 'Let me see. ';
        if (call === 1) throw new Error('ModelStreamErrorException: stream broke');
        yield 'Welcome.';
      },
      reply: async function* () {},
    };
    const c = controller(room, engine);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(room.spoken).toEqual(['Let me see.', holdingLine, 'Let me see.', 'Welcome.']);
    expect(seen).toEqual([[], ['Let me see.']]);
    c.stop();
  });

  it('stop() ends a backoff at once: nothing more is asked or said', async () => {
    const room = new FakeRoom([{ participantId: 'ann', name: 'Ann' }]);
    const model = flakyModel(() => 'start');
    const c = controller(room, model.engine);
    await vi.advanceTimersByTimeAsync(100);
    c.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(model.calls).toHaveLength(1);
    expect(room.spoken).toEqual([holdingLine]);
  });
});

/** A room whose voice fails the calls `failing` says (numbered from 1). */
function roomWithVoice(failing: (call: number) => boolean) {
  const room = new FakeRoom([{ participantId: 'ann', name: 'Ann' }]);
  const tried: number[] = [];
  room.speech.say = async (text: string, options?: SayOptions) => {
    // A line prepared while the one before plays is tried once that one has been heard (Speech.say's contract).
    if (options?.startWhen && !(await options.startWhen)) return 'interrupted' as const;
    tried.push(Date.now());
    if (failing(tried.length)) throw new Error('connect ECONNREFUSED 127.0.0.1:9 (Polly)');
    room.spoken.push(text);
    return 'done' as const;
  };
  return { room, tried };
}

describe('a failing voice', () => {
  const model = (): ConversationEngine => ({
    greet: async function* () {
      yield 'Hello. Could you tell me about your last project?';
    },
    reply: async function* () {
      yield 'Thanks. How do you test code?';
    },
  });

  it('a line that fails once is retried after 500 ms and spoken; no warning', async () => {
    const { room, tried } = roomWithVoice((n) => n === 1);
    const c = controller(room, model());
    await vi.advanceTimersByTimeAsync(499);
    expect(room.spoken).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(tried.map((t) => t - started)).toEqual([0, 500, 500]);
    expect(room.spoken).toEqual(['Hello.', 'Could you tell me about your last project?']);
    expect(room.written).toEqual([]);
    expect(warnings).toEqual([]);
    expect(metrics.named(metricNames.speechFailures, { outcome: 'retried' })).toHaveLength(1);
    c.stop();
  });

  it('a line that fails twice goes out as text, and so does every later line; one warning', async () => {
    const { room, tried } = roomWithVoice(() => true);
    const c = controller(room, model());
    await vi.advanceTimersByTimeAsync(500);
    expect(tried).toHaveLength(2);
    expect(room.written).toEqual(['Hello.', 'Could you tell me about your last project?']);
    expect(warnings).toEqual([
      {
        code: 'speech_fallback',
        message:
          "The bot's voice failed twice on one line (connect ECONNREFUSED 127.0.0.1:9 (Polly)); it went on in text only, its lines sent as chat messages in the room.",
      },
    ]);
    annSays(room, 'A billing system.');
    await vi.advanceTimersByTimeAsync(10);
    expect(room.written.slice(2)).toEqual(['Thanks.', 'How do you test code?']);
    // Text only from then on: the voice is not tried again, and nothing was lost to the model's retries.
    expect(tried).toHaveLength(2);
    expect(metrics.named(metricNames.speechFailures, { outcome: 'text_only' })).toHaveLength(1);
    expect(lines).toContain('warn the voice failed twice on a line; the bot goes on in text only');
    c.stop();
  });
});

describe('a replacement task', () => {
  it('continues with the fallbacks the session took: the model is not asked, the voice not tried, nothing raised again', async () => {
    const room = new FakeRoom([{ participantId: 'ann', name: 'Ann' }]);
    let voiceTried = 0;
    room.speech.say = async () => {
      voiceTried++;
      return 'done' as const;
    };
    const model = flakyModel(() => false);
    const c = controller(room, model.engine, [
      { code: 'conversation_model_fallback', message: 'the model failed' },
      { code: 'speech_fallback', message: 'the voice failed' },
    ]);
    await vi.advanceTimersByTimeAsync(0);
    expect(room.written).toEqual(splitSentences(localGreeting));
    expect(model.calls).toEqual([]);
    expect(voiceTried).toBe(0);
    expect(warnings).toEqual([]);
    c.stop();
  });
});

describe('session warnings', () => {
  it('already on the session (a replaced bot raised them) are not raised again', async () => {
    const written: SessionWarning[] = [];
    const store = {
      addWarning: async (_: string, w: SessionWarning) => {
        written.push(w);
        return true;
      },
    };
    const w = new SessionWarnings('bot-1', store, recordingLogger(lines), [
      { code: 'speech_fallback', message: 'voice failed' },
    ]);
    w.add({ code: 'speech_fallback', message: 'voice failed again' });
    w.add({ code: 'conversation_model_fallback', message: 'model failed' });
    await w.flush();
    expect(written).toEqual([{ code: 'conversation_model_fallback', message: 'model failed' }]);
    expect(metrics.named(metricNames.sessionWarnings)).toHaveLength(1);
  });

  it('are recorded on the session once per code, counted and logged; a failed write is retried', async () => {
    const written: SessionWarning[] = [];
    let failNext = true;
    const store = {
      addWarning: async (_botId: string, w: SessionWarning) => {
        if (failNext) {
          failNext = false;
          throw new Error('ProvisionedThroughputExceededException');
        }
        written.push(w);
        return true;
      },
    };
    const w = new SessionWarnings('bot-1', store, recordingLogger(lines));
    const warning = { code: 'speech_fallback', message: 'voice failed' } as const;
    w.add(warning);
    w.add({ ...warning, message: 'again' });
    const flushed = w.flush();
    await vi.advanceTimersByTimeAsync(1_000);
    await flushed;
    expect(written).toEqual([warning]);
    expect(metrics.named(metricNames.sessionWarnings, { code: 'speech_fallback' })).toHaveLength(1);
    expect(lines.filter((l) => l === 'warn session warning')).toHaveLength(1);
  });
});

function splitSentences(text: string): string[] {
  return text.match(/[^.?!]+[.?!]+/g)!.map((s) => s.trim());
}
