// Voice-to-voice latency: from the end of a participant's speech to the first audible sample of the bot's answer at a
// listener, in two parts. Assumed: Daily's transcription, the model and Polly are stand-ins replaying published
// latency distributions (docs/voice-latency.md gives every figure and its source) on a virtual clock, through the
// bot's real turn-taking (ConversationController) and conversation engines (BedrockConversationEngine,
// OpenAIConversationEngine: prompt, streaming, spoken-text filter), up to the reply's first audio reaching the bot.
// Measured: our Node code on that way, in real time, and from the first audio on (voice-path.ts) our voice
// (PollySynthesizer.stream, dailySpeech), the Daily page's player, WebAudio and a WebRTC connection to a listener in
// Chromium that detects the first audible sample.
import { EventEmitter, setMaxListeners } from 'node:events';
import type { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import type { PollyClient } from '@aws-sdk/client-polly';
import type OpenAI from 'openai';
import { ConversationController, turnTakingSettings } from '../bot-task/conversation';
import { dailySpeech } from '../bot-task/providers/daily/daily-speech';
import { BedrockConversationEngine } from '../core/adapters/bedrock/conversation-engine';
import { OpenAIConversationEngine } from '../core/adapters/openai/conversation-engine';
import { PollySynthesizer } from '../core/adapters/polly/polly-synthesizer';
import type { Utterance } from '../core/bots/transcript';
import { loadConfig } from '../core/config';
import { createLogger } from '../core/log';
import type { RoomConnection, RoomEventName, RoomEvents } from '../core/ports/room-provider';
import { type Dist, rng, sample } from './random';
import type { Table } from './run';
import { type BenchOptions, percentile, verdict } from './support';
import { realNow, VirtualTime } from './virtual-clock';
import { measuredLine, measureVoicePath, type VoicePathFigures, voicePathMissing } from './voice-path';

/** The targets: the whole way to the listener, and our own Node code on it. */
const target = { p50_ms: 800, p95_ms: 1_200, own_code_p95_ms: 100 };

/**
 * The stand-ins' distributions (ms). Each is cited in docs/voice-latency.md; where no source gives a percentile the
 * spread is ours and says so there.
 */
export const services = {
  /** Deepgram streaming: results trail the audio by its transcription latency ("300 ms or less"). */
  deepgramLatency: { median: 180, p95: 300 } satisfies Dist,
  /** Daily relays the result to the bot's page as an app message (no published figure: assumed). */
  dailyRelay: { median: 40, p95: 80 } satisfies Dist,
  /** While a person speaks, an interim result every this often (assumed; Deepgram sends them as audio arrives). */
  interimEveryMs: [250, 500] as const,
  /** Finals whose punctuation Deepgram left off (assumed): they end as "unclear" and wait the longer silence. */
  unpunctuatedShare: 0.1,
  models: {
    /** Our default conversation model (infra/constructs/model-access.ts), ConverseStream. */
    'bedrock amazon.nova-lite-v1:0': { ttft: { median: 350, p95: 700 }, tokensPerSecond: 150 },
    /** One OpenAI-compatible model: gpt-4o-mini on OpenAI. */
    'openai gpt-4o-mini': { ttft: { median: 460, p95: 900 }, tokensPerSecond: 80 },
  },
  /** Polly (neural, PCM) first byte of a short sentence. */
  pollyFirstByte: { median: 150, p95: 300 } satisfies Dist,
};

type ModelName = keyof typeof services.models;

/** The participant's answers: finished sentences, as Deepgram punctuates them. */
const answers = [
  'I rebuilt our billing pipeline in TypeScript and cut invoice errors by forty percent.',
  'Mostly unit tests, plus contract tests for every external API we call.',
  'We ran the old and new systems side by side for three weeks before switching.',
  'My biggest strength is staying calm when a release goes wrong.',
  'Yes, I led a team of four engineers for two years.',
  'Could you say a bit more about the role?',
  'I moved to Berlin in 2019 to join a payments startup.',
  'The hardest bug was a race between two queue consumers.',
];

/** The model's reply: a short first sentence, then a question, as the prompt asks. */
const replyText = 'Thank you, that is helpful. What would you do differently next time?';

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, Math.max(0, ms));
    signal?.addEventListener('abort', () => {
      clearTimeout(timer);
      reject(Object.assign(new Error('aborted'), { name: 'AbortError' }));
    });
  });

/**
 * A moment of a turn on both clocks: `v` the virtual clock the stand-ins' latencies run on (performance.now() while
 * the bench runs), `r` the real clock our own code's time is measured on.
 */
interface Stamp {
  v: number;
  r: number;
}

const stamp = (): Stamp => ({ v: performance.now(), r: realNow() });

/** Timestamps of one turn, taken by the stand-ins and the page recorder. */
interface Trace {
  speechEnd: number;
  /** Transcript events delivered to the bot. */
  delivered: number[];
  modelCalls: Stamp[];
  /** Each text chunk a model stand-in handed over. */
  modelChunks: Stamp[];
  pollyCalls: Stamp[];
  pollyFirstBytes: Stamp[];
  started: Stamp[];
  released: Stamp[];
  cancelled: number;
  firstPush?: Stamp;
  /** The reply's first line ended playing (virtual clock). */
  firstEnd?: number;
  /** The reply's second line started playing (virtual clock). */
  secondPush?: number;
}

function modelStandIn(name: ModelName, trace: Trace, random: () => number) {
  const spec = services.models[name];
  // The reply in the pieces a model streams (a word and its space), at the model's output speed.
  const pieces = replyText.split(/(?<= )/);
  async function* tokens(signal: AbortSignal): AsyncGenerator<string> {
    for (const [i, piece] of pieces.entries()) {
      // The first token comes at the time to first token; each later one after the output speed's interval.
      if (i > 0) await sleep(1000 / spec.tokensPerSecond, signal);
      trace.modelChunks.push(stamp());
      yield piece;
    }
  }
  const ttft = async (signal?: AbortSignal) => {
    trace.modelCalls.push(stamp());
    await sleep(sample(random, spec.ttft), signal);
  };
  if (name.startsWith('bedrock')) {
    const client = {
      async send(_command: unknown, options?: { abortSignal?: AbortSignal }) {
        const signal = options?.abortSignal ?? new AbortController().signal;
        // One listener per streamed piece (sleep): more than Node's default warning threshold, none leaked.
        setMaxListeners(100, signal);
        await ttft(signal);
        return {
          stream: (async function* () {
            for await (const text of tokens(signal)) yield { contentBlockDelta: { delta: { text } } };
            yield { messageStop: { stopReason: 'end_turn' } };
            yield { metadata: { usage: { inputTokens: 400, outputTokens: pieces.length } } };
          })(),
        };
      },
    } as unknown as BedrockRuntimeClient;
    return new BedrockConversationEngine(client, { modelId: 'amazon.nova-lite-v1:0' });
  }
  const client = {
    chat: {
      completions: {
        async create(_request: unknown, options?: { signal?: AbortSignal }) {
          const signal = options?.signal ?? new AbortController().signal;
          setMaxListeners(100, signal);
          await ttft(signal);
          return (async function* () {
            for await (const content of tokens(signal))
              yield { choices: [{ delta: { content }, finish_reason: null }] };
            yield { choices: [{ delta: {}, finish_reason: 'stop' }] };
          })();
        },
      },
    },
  } as unknown as OpenAI;
  return new OpenAIConversationEngine(client, { model: 'gpt-4o-mini' });
}

/** Speech at about 15 characters a second: 65 ms of audio per character of the line. */
const audioMsPerChar = 65;
/** The page plays 16 kHz 16-bit mono: 32 bytes a millisecond. */
const bytesPerMs = 32;

/**
 * Polly: the first bytes after its time to first byte, the rest faster than it plays (100 ms of audio per chunk, as
 * much audio as the line takes to say).
 */
function pollyStandIn(trace: Trace, random: () => number) {
  return {
    async send(command: { input?: { Text?: string } }, options?: { abortSignal?: AbortSignal }) {
      trace.pollyCalls.push(stamp());
      const signal = options?.abortSignal;
      if (signal) setMaxListeners(100, signal);
      await sleep(sample(random, services.pollyFirstByte), signal);
      const chunks = Math.max(1, Math.ceil(((command.input?.Text ?? '').length * audioMsPerChar) / 100));
      return {
        AudioStream: (async function* () {
          for (let i = 0; i < chunks; i++) {
            if (i === 0) trace.pollyFirstBytes.push(stamp());
            else await sleep(10, signal);
            yield new Uint8Array(3_201);
          }
        })(),
      };
    },
  } as unknown as PollyClient;
}

/** The room as Daily's provider presents it: transcript events and audio activity, the bot's voice on dailySpeech. */
function benchRoom(trace: Trace, random: () => number, onFirstPush: () => void, onSecondLine: () => void) {
  const events = new EventEmitter();
  /** Per line: when its audio started and how much of it was pushed, to end it when it has been played. */
  const lines = new Map<number, { start: number; bytes: number }>();
  const speech = dailySpeech({
    synthesizer: new PollySynthesizer(pollyStandIn(trace, random)),
    voice: 'Joanna',
    closing: () => false,
    write: async () => {},
    player: {
      open: async () => {},
      push: async (line, pcm) => {
        const played = lines.get(line) ?? { start: performance.now(), bytes: 0 };
        lines.set(line, played);
        played.bytes += Buffer.byteLength(pcm, 'base64');
        if (lines.size === 2 && trace.secondPush === undefined) {
          trace.secondPush = performance.now();
          onSecondLine();
        }
        if (trace.firstPush) return;
        trace.firstPush = stamp();
        onFirstPush();
      },
      // The line has been heard once its audio has played from its first chunk on.
      end: async (line) => {
        const played = lines.get(line);
        if (played) await sleep(played.start + played.bytes / bytesPerMs - performance.now());
        if (lines.size === 1) trace.firstEnd = performance.now();
        return 'done';
      },
      stop: () => {},
    },
  });
  const room: RoomConnection = {
    selfId: 'bot',
    speech,
    participants: () => [],
    on<K extends RoomEventName>(event: K, listener: (payload: RoomEvents[K]) => void) {
      events.on(event, listener);
    },
    leave: async () => {},
  };
  return { room, emit: <K extends RoomEventName>(e: K, p: RoomEvents[K]) => events.emit(e, p) };
}

/** One turn: the participant answers, the bot replies; the trace of when each part happened. */
async function turn(model: ModelName, seed: number): Promise<Trace> {
  const random = rng(seed);
  const config = loadConfig({});
  const trace: Trace = {
    speechEnd: 0,
    delivered: [],
    modelCalls: [],
    modelChunks: [],
    pollyCalls: [],
    pollyFirstBytes: [],
    started: [],
    released: [],
    cancelled: 0,
  };
  let heardReply = () => {};
  const replied = new Promise<void>((resolve) => {
    heardReply = resolve;
  });
  let heardSecond = () => {};
  const second = new Promise<void>((resolve) => {
    heardSecond = resolve;
  });
  const { room, emit } = benchRoom(
    trace,
    random,
    () => heardReply(),
    () => heardSecond(),
  );
  const heard: Utterance[] = [];
  const controller = new ConversationController(
    room,
    modelStandIn(model, trace, random),
    {
      botName: 'Iris',
      prompt: 'Ask: 1. What did you build last? 2. How do you test it?',
      ...turnTakingSettings(config),
      onTurn: (e) => {
        if (e === 'started') trace.started.push(stamp());
        else if (e === 'released') trace.released.push(stamp());
        else trace.cancelled++;
      },
    },
    () => heard,
    createLogger('silent'),
  );
  controller.start();

  let text = answers[Math.floor(random() * answers.length)]!;
  if (random() < services.unpunctuatedShare) text = text.replace(/[.?!]$/, '');
  const words = text.split(' ');
  // The person speaks at about 2.5 words a second; Deepgram's results trail the audio.
  const wordMs = 400;
  const spokenMs = words.length * wordMs;
  // Only the last seconds of the answer bear on its end of turn: what came before is not replayed.
  const skippedMs = Math.max(0, spokenMs - 2_000);
  const start = performance.now() - skippedMs;
  const lag = () => sample(random, services.deepgramLatency) + sample(random, services.dailyRelay);
  const deliveries: { at: number; event: RoomEvents['utterance'] }[] = [];
  const utterance = (t: string, final: boolean, speechFinal?: boolean): RoomEvents['utterance'] => ({
    participantId: 'ann',
    name: 'Ann',
    text: t,
    final,
    at: new Date().toISOString(),
    ...(speechFinal !== undefined && { speechFinal }),
  });
  for (let at = services.interimEveryMs[0]; ; ) {
    const said = Math.min(words.length, Math.floor(at / wordMs));
    if (said >= words.length) break;
    if (said > 0 && at >= skippedMs)
      deliveries.push({ at: at + lag(), event: utterance(words.slice(0, said).join(' '), false) });
    at += services.interimEveryMs[0] + random() * (services.interimEveryMs[1] - services.interimEveryMs[0]);
  }
  // The last words: an interim once Deepgram has them, the final (speech_final) after its endpointing silence.
  deliveries.push({ at: spokenMs + lag(), event: utterance(text, false) });
  deliveries.push({
    at: spokenMs + config.TRANSCRIPTION_ENDPOINTING_MS + lag(),
    event: utterance(text, true, true),
  });
  // Results arrive in the order of the audio they transcribe (one WebSocket): a late one holds up the next.
  let last = 0;
  for (const d of deliveries) {
    d.at = Math.max(d.at, last);
    last = d.at;
  }
  // Loud audio while speaking, reported at most once a second (the page's audio-activity).
  for (let at = 0; at < spokenMs; at += 1000)
    if (at >= skippedMs)
      setTimeout(() => emit('audio-activity', { participantId: 'ann', active: true }), at - skippedMs);
  for (const d of deliveries)
    setTimeout(
      () => {
        trace.delivered.push(performance.now());
        if (d.event.final)
          heard.push({ speaker: 'Ann', participant_id: 'ann', started_at: d.event.at, text: d.event.text });
        emit('utterance', d.event);
      },
      d.at - (performance.now() - start),
    );
  trace.speechEnd = start + spokenMs;
  await Promise.race([replied, sleep(15_000)]);
  if (trace.firstPush === undefined) throw new Error(`${model}: no reply within 15 s (seed ${seed})`);
  // The reply goes on: how long the listener waits between its first line and the next.
  await Promise.race([second, sleep(15_000)]);
  controller.stop();
  return trace;
}

/** The last moment at or before `t` (on the virtual clock; of two at the same moment, the later in real time). */
const lastBefore = (times: Stamp[], t: Stamp) =>
  times.filter((x) => x.v < t.v || (x.v === t.v && x.r <= t.r)).at(-1) ?? t;

interface Figures {
  /** Silence between the end of the reply's first line and the start of the next (virtual). */
  gap: number;
  /** The end of the participant's speech → the reply's audio ready in the bot (virtual): the stand-ins and the waits. */
  assumed: number;
  /** Our own Node code on that way, in real time. */
  own: number;
  hold: number;
  cancelled: number;
}

/**
 * Where the simulated part ends: the reply's audio is ready, at Polly's first byte, or at the release of a held
 * reply when that came later; from there on the path is measured in Chromium (voice-path.ts). Our own code before it,
 * in real time: from the decision to start the heard reply to the model call, and from the model's chunk that
 * completed the first sentence to the Polly call. The virtual clock stands still while our code runs, so the time to
 * the ready audio is the virtual time plus this.
 */
function figures(t: Trace): Figures {
  const push = t.firstPush!;
  const polly = lastBefore(t.pollyCalls, push);
  const model = lastBefore(t.modelCalls, polly);
  const trigger = lastBefore(t.started, model);
  const sentenceDone = lastBefore(t.modelChunks, polly);
  const firstByte = lastBefore(t.pollyFirstBytes, push);
  const release = lastBefore(t.released, push);
  const ready =
    release.v > firstByte.v || (release.v === firstByte.v && release.r > firstByte.r) ? release : firstByte;
  return {
    gap:
      t.firstEnd !== undefined && t.secondPush !== undefined
        ? Math.max(0, t.secondPush - t.firstEnd)
        : Number.NaN,
    assumed: ready.v - t.speechEnd,
    own: Math.max(0, model.r - trigger.r) + Math.max(0, polly.r - sentenceDone.r),
    hold: Math.max(0, release.v - firstByte.v),
    cancelled: t.cancelled,
  };
}

const round = (n: number) => Math.round(n);
const spread = (values: number[]) => ({
  p50: round(percentile(values, 50)),
  p95: round(percentile(values, 95)),
  max: round(Math.max(...values)),
});

/** What the verdict for `model` assumes: the stand-ins' median / p95 (ms), each cited in docs/voice-latency.md. */
export function assumptionsOf(model: ModelName): string {
  const d = (x: Dist) => `${x.median}/${x.p95}`;
  const m = services.models[model];
  // The listener is on this machine: the network to and from Daily's servers is neither measured nor assumed.
  return `Deepgram ${d(services.deepgramLatency)} + Daily relay ${d(services.dailyRelay)}, first token ${d(m.ttft)}, Polly first byte ${d(services.pollyFirstByte)} ms; no network to the listener`;
}

export async function run(options: BenchOptions): Promise<Record<string, unknown>> {
  // 2,000 turns: the median of the first 300 lay 10 ms above that of 2,000, as far as it lay from the target.
  const turns = options.quick ? 12 : 2_000;
  const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  const missing = voicePathMissing(chromiumPath);
  // Measured first, on the real clock: the virtual clock below would stop Playwright's timers too.
  const path: VoicePathFigures | undefined = missing
    ? undefined
    : await measureVoicePath(chromiumPath, {
        lines: options.quick ? 5 : 200,
        warmupMs: options.quick ? 2_000 : 5_000,
      });
  const results: Record<string, unknown> = {};
  let pass = path !== undefined;
  // One turn at a time on the virtual clock: the stand-ins' latencies cost no wall-clock time and the machine's load
  // cannot stretch them; only our own code's time is real.
  const clock = new VirtualTime(realNow());
  const uninstall = clock.install();
  try {
    for (const model of Object.keys(services.models) as ModelName[]) {
      const all: Figures[] = [];
      // A few turns first, not counted: the bot greets before anyone answers, so its code is compiled by then.
      for (let seed = -3; seed <= 0; seed++) {
        await clock.run(turn(model, seed));
        clock.discardTimers();
      }
      for (let seed = 1; seed <= turns; seed++) {
        all.push(figures(await clock.run(turn(model, seed))));
        clock.discardTimers();
      }
      const pick = (f: (x: Figures) => number) => all.map(f);
      // Each turn's way to the listener is one of the lines measured in Chromium, in turn.
      const measured = path
        ? all.map((x, i) => x.own + path.toListener[i % path.toListener.length]!)
        : undefined;
      const r = {
        turns: all.length,
        /** The end of speech → the listener's first audible sample: assumed + measured, turn by turn. */
        voice_to_voice_ms: measured ? spread(all.map((x, i) => x.assumed + measured[i]!)) : null,
        /** The end of speech → the reply's audio ready in the bot, on the stand-ins' published latencies. */
        assumed_ms: spread(pick((x) => x.assumed)),
        /** Our Node code before the audio, and the measured path from the audio to the listener. */
        measured_ms: measured ? spread(measured) : null,
        own_code_ms: spread(pick((x) => x.own)),
        /** Silence between the reply's first line and its second (the next line is synthesized while one plays). */
        gap_between_lines_ms: {
          p50: round(percentile(pick((x) => x.gap).filter(Number.isFinite), 50)),
          p95: round(percentile(pick((x) => x.gap).filter(Number.isFinite), 95)),
        },
        /** Turns whose audio was ready before the end-of-turn silence had run: it waited this long. */
        held_for_silence_ms: {
          p50: round(
            percentile(
              pick((x) => x.hold),
              50,
            ),
          ),
        },
        replies_dropped_unheard_per_turn:
          Math.round((all.reduce((n, x) => n + x.cancelled, 0) / all.length) * 100) / 100,
      };
      if (!meets(r)) pass = false;
      results[model] = r;
    }
  } finally {
    uninstall();
  }
  return {
    models: results,
    measured_path: path && {
      lines: path.toListener.length,
      line: `"${measuredLine}" (espeak-ng, ${path.lineMs} ms)`,
      to_listener_ms: spread(path.toListener),
      to_microphone_ms: spread(path.toMicrophone),
      listener_jitter_buffer_mean_ms: round(path.jitterBufferMs),
      codec: path.codec,
      clock_uncertainty_ms: Math.round(path.clockUncertaintyMs * 10) / 10,
    },
    target,
    pass,
    assumed: services,
    assumptions: Object.fromEntries(
      (Object.keys(services.models) as ModelName[]).map((m) => [m, assumptionsOf(m)]),
    ),
    ...(missing && {
      valid: false,
      warnings: [
        `the path to the listener was not measured, so there is no voice-to-voice figure: ${missing}`,
      ],
    }),
    notes: [
      'voice-to-voice: the end of the participant’s speech → the first audible sample at a listener in Chromium; assumed part + measured part, turn by turn.',
      'assumed: the end of speech → the reply’s audio ready in the bot (Polly’s first byte, or the release of a held reply), on the stand-ins’ published latencies on a virtual clock (bench/virtual-clock.ts); our turn-taking and engines run for real.',
      'measured: our Node code on that way (own code, real time), plus, from the audio ready on, one of the lines said in Chromium: PollySynthesizer.stream, dailySpeech, page.evaluate, the page’s WebAudio player, the microphone track, WebRTC (Opus, loopback) and the listener’s detection (bench/voice-path.ts).',
      'to the microphone: the same start → the first audible sample on the bot’s own microphone track, read in its page (before WebRTC).',
      'docs/voice-latency.md cites every assumed figure and gives the method.',
    ],
  };
}

interface ModelResult {
  turns: number;
  voice_to_voice_ms: { p50: number; p95: number } | null;
  assumed_ms: { p50: number; p95: number };
  measured_ms: { p50: number; p95: number } | null;
  own_code_ms: { p50: number; p95: number };
}

function meets(m: ModelResult): boolean {
  return (
    m.voice_to_voice_ms !== null &&
    m.voice_to_voice_ms.p50 <= target.p50_ms &&
    m.voice_to_voice_ms.p95 <= target.p95_ms &&
    m.own_code_ms.p95 <= target.own_code_p95_ms
  );
}

export function table(result: Record<string, unknown>, options: BenchOptions): Table {
  const r = result as {
    models: Record<string, ModelResult>;
    measured_path?: {
      lines: number;
      line: string;
      to_listener_ms: { p50: number; p95: number };
      to_microphone_ms: { p50: number; p95: number };
      listener_jitter_buffer_mean_ms: number;
      codec: string;
    };
    warnings?: string[];
  };
  const pair = (x: { p50: number; p95: number } | null) => (x ? `${x.p50} / ${x.p95}` : 'not measured');
  const rows: Table = [
    [
      'model',
      'assumed: end of speech → audio in the bot p50 / p95',
      'measured: our code + Chromium → listener p50 / p95',
      'end of speech → heard p50 / p95 (ms)',
      'target: p50 ≤ 800, p95 ≤ 1200, own code p95 ≤ 100',
    ],
  ];
  for (const [model, m] of Object.entries(r.models)) {
    rows.push([
      `${model} (${m.turns} turns)`,
      pair(m.assumed_ms),
      `${pair(m.measured_ms)} (own code ${m.own_code_ms.p95})`,
      pair(m.voice_to_voice_ms),
      `${verdict(meets(m), options)}, assuming ${assumptionsOf(model as ModelName)}`,
    ]);
  }
  const p = r.measured_path;
  rows.push([
    p
      ? `measured in Chromium, ${p.lines} lines of ${p.line}: audio in the bot → the listener's first audible sample p50 / p95 ${pair(p.to_listener_ms)} ms (→ the bot's microphone track ${pair(p.to_microphone_ms)} ms; the listener's jitter buffer ${p.listener_jitter_buffer_mean_ms} ms on average; ${p.codec})`
      : `!!! ${r.warnings?.join('; ') ?? 'the path to the listener was not measured'}`,
  ]);
  return rows;
}
