// Turn-taking on real speech: how often the bot starts speaking while a person still had more to say, and how long
// it takes to answer once they have finished, per end-of-turn rule. Multi-sentence answers from real conversations
// and our interviews (bench/turn-taking-corpus.ts) are spoken with pauses drawn from a published distribution and
// transcribed as a streaming recognizer does (bench/spoken-answer.ts); the bot's real ConversationController takes
// them, with stand-ins for the model's first token and Polly's first byte, on the virtual clock. The method, the
// sources and the results are in docs/benchmarks.md (turn-taking).
import { EventEmitter } from 'node:events';
import {
  ConversationController,
  type ConversationSettings,
  turnTakingSettings,
} from '../bot-task/conversation';
import type { Utterance } from '../core/bots/transcript';
import { loadConfig } from '../core/config';
import { createLogger } from '../core/log';
import type { ConversationEngine } from '../core/ports/conversation-engine';
import type { RoomConnection, RoomEventName, RoomEvents } from '../core/ports/room-provider';
import type { Speech } from '../core/ports/speech';
import { rng, sample } from './random';
import type { Table } from './run';
import { type PauseKind, recognizer, type SpokenAnswer, speakAnswer, speaking } from './spoken-answer';
import { type BenchOptions, percentile, verdict } from './support';
import { type Answer, type CorpusPart, loadCorpus } from './turn-taking-corpus';
import { realNow, VirtualTime } from './virtual-clock';
import { services } from './voice';

/** The target: at most 5 % of multi-sentence answers interrupted, a median voice-to-voice of 800 ms. */
const target = { interrupted_pct: 5, p50_ms: 800 };

/** The default model's latency (bench/voice.ts: Nova Lite on Bedrock), and Polly's. */
const model = services.models['bedrock amazon.nova-lite-v1:0'];
const latency = { transcription: services.deepgramLatency, relay: services.dailyRelay };

/** An end-of-turn rule as the controller is configured for it, and how the room reports the speaker's audio. */
interface Rule {
  name: string;
  /** The controller's settings; `heard` is the transcript the meaning reads (the bot's question, the answer so far). */
  settings(): Omit<ConversationSettings, 'botName'>;
  /** Audio activity reported as soon as speech resumes (spoken-answer.ts), not as the page reports it now. */
  onsetActivity?: boolean;
  /** Only in the full run (a lever, not a rule the bot ships). */
  lever?: boolean;
}

const defaults = () => turnTakingSettings(loadConfig({}));
const fixed = (ms: number) => () => {
  const base = defaults();
  return { ...base, endOfTurnMs: ms, turnTaking: { ...base.turnTaking, mode: 'fixed' as const } };
};
const wordsOnly = () => {
  const base = defaults();
  return { ...base, turnTaking: { ...base.turnTaking, meaning: false } };
};

// Audio activity as the Daily page reports it: at once when speech resumes after a quiet level, then at most once a
// second. The last row reports it only once a second, as the page did before.
const rules: Rule[] = [
  { name: 'silence only (fixed 700 ms)', settings: fixed(700), onsetActivity: true },
  { name: 'punctuation', settings: wordsOnly, onsetActivity: true },
  { name: 'punctuation and meaning (default)', settings: defaults, onsetActivity: true },
  { name: 'lever: silence only, 1.5 s', settings: fixed(1_500), onsetActivity: true, lever: true },
  { name: 'lever: silence only, 3 s', settings: fixed(3_000), onsetActivity: true, lever: true },
  { name: 'lever: punctuation and meaning, activity once a second', settings: defaults, lever: true },
];

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The model: its first words after the time to first token (the rest does not bear on when the bot starts). */
function engineStandIn(random: () => number): ConversationEngine {
  return {
    async *greet() {},
    async *reply() {
      await sleep(sample(random, model.ttft));
      yield 'Thank you, that is helpful. ';
      yield 'What would you do differently next time?';
    },
  };
}

/** The voice: audio ready Polly's first byte after the line is handed over, heard once the reply is released. */
function speechStandIn(random: () => number, heard: () => void): Speech {
  return {
    async say(_text, options) {
      const ready = sleep(sample(random, services.pollyFirstByte));
      const [, go] = await Promise.all([ready, options?.startWhen ?? true]);
      if (!go) return 'interrupted';
      heard();
      await sleep(2_000);
      return 'done';
    },
    async write() {},
    stop() {},
  };
}

interface Outcome {
  /** When the bot's first audio started, ms since the answer began; undefined: it had not within 10 s of the end. */
  audioAt?: number;
}

/** The bot hears one spoken answer; when does its first audio start? */
async function respond(
  answer: Answer,
  spoken: SpokenAnswer,
  rule: Rule,
  seed: number,
  /** The answer's words before these, already heard. */
  before?: string,
): Promise<Outcome> {
  const random = rng(seed);
  const start = performance.now();
  const events = new EventEmitter();
  let audioAt: number | undefined;
  let done = () => {};
  const finished = new Promise<void>((resolve) => {
    done = resolve;
  });
  const room: RoomConnection = {
    selfId: 'bot',
    speech: speechStandIn(random, () => {
      audioAt ??= performance.now() - start;
      done();
    }),
    participants: () => [],
    on<K extends RoomEventName>(event: K, listener: (payload: RoomEvents[K]) => void) {
      events.on(event, listener);
    },
    leave: async () => {},
  };
  const at = new Date(0).toISOString();
  const heard: Utterance[] = [
    ...(answer.asked
      ? [{ speaker: 'Iris', participant_id: 'bot', started_at: at, text: answer.asked, is_bot: true }]
      : []),
    ...(before ? [{ speaker: 'Ann', participant_id: 'ann', started_at: at, text: before }] : []),
  ];
  const controller = new ConversationController(
    room,
    engineStandIn(random),
    { botName: 'Iris', ...rule.settings() },
    () => heard,
    createLogger('silent'),
  );
  controller.start();
  for (const r of spoken.received)
    setTimeout(() => {
      if ('utterance' in r) {
        if (r.utterance.final)
          heard.push({
            speaker: 'Ann',
            participant_id: 'ann',
            started_at: r.utterance.at,
            text: r.utterance.text,
          });
        events.emit('utterance', r.utterance);
      } else events.emit('audio-activity', r.activity);
    }, r.at);
  await Promise.race([finished, sleep(spoken.end + 10_000)]);
  controller.stop();
  return audioAt === undefined ? {} : { audioAt };
}

interface Measured {
  part: CorpusPart;
  sentences: number;
  /** The bot started speaking before the answer's last word had ended; in which kind of pause. */
  interruptedIn?: PauseKind;
  /** The bot's first audio after the answer's end (the answer alone, spoken to its end with the bot not speaking). */
  latencyMs?: number;
}

/** One answer under one rule: the whole answer for interruptions; its last sentence alone for the latency. */
async function measure(clock: VirtualTime, answer: Answer, rule: Rule, seed: number): Promise<Measured> {
  const spoken = speakAnswer(answer.sentences, rng(seed), latency, rule.onsetActivity);
  const whole = await clock.run(respond(answer, spoken, rule, seed + 1));
  clock.discardTimers();
  const out: Measured = { part: answer.part, sentences: answer.sentences.length };
  if (whole.audioAt !== undefined && whole.audioAt < spoken.end) {
    const pause = spoken.pauses.find((p) => whole.audioAt! < p.end) ?? spoken.pauses.at(-1);
    out.interruptedIn = pause?.kind ?? 'within a sentence';
    // Its latency: the last sentence spoken after the rest has been heard.
    const tail = speakAnswer(answer.sentences.slice(-1), rng(seed + 2), latency, rule.onsetActivity);
    const before = answer.sentences.slice(0, -1).join(' ');
    const alone = await clock.run(respond(answer, tail, rule, seed + 3, before));
    clock.discardTimers();
    if (alone.audioAt !== undefined) out.latencyMs = alone.audioAt - tail.end;
  } else if (whole.audioAt !== undefined) out.latencyMs = whole.audioAt - spoken.end;
  return out;
}

interface RuleFigures {
  answers: number;
  interrupted_pct: number;
  interrupted_between_sentences_pct: number;
  interrupted_within_a_sentence_pct: number;
  voice_to_voice_ms: { p50: number; p95: number };
  unanswered: number;
  by_part: Record<string, { answers: number; interrupted_pct: number; p50_ms: number }>;
}

const pct = (n: number, of: number) => Math.round((1000 * n) / Math.max(1, of)) / 10;

function summarise(all: Measured[]): RuleFigures {
  const latencies = all.flatMap((m) => (m.latencyMs === undefined ? [] : [m.latencyMs]));
  const byPart: RuleFigures['by_part'] = {};
  for (const part of new Set(all.map((m) => m.part))) {
    const of = all.filter((m) => m.part === part);
    byPart[part] = {
      answers: of.length,
      interrupted_pct: pct(of.filter((m) => m.interruptedIn).length, of.length),
      p50_ms: Math.round(
        percentile(
          of.flatMap((m) => (m.latencyMs === undefined ? [] : [m.latencyMs])),
          50,
        ),
      ),
    };
  }
  return {
    answers: all.length,
    interrupted_pct: pct(all.filter((m) => m.interruptedIn).length, all.length),
    interrupted_between_sentences_pct: pct(
      all.filter((m) => m.interruptedIn === 'between sentences').length,
      all.length,
    ),
    interrupted_within_a_sentence_pct: pct(
      all.filter((m) => m.interruptedIn === 'within a sentence').length,
      all.length,
    ),
    voice_to_voice_ms: {
      p50: Math.round(percentile(latencies, 50)),
      p95: Math.round(percentile(latencies, 95)),
    },
    unanswered: all.length - latencies.length,
    by_part: byPart,
  };
}

export async function run(options: BenchOptions): Promise<Record<string, unknown>> {
  const corpus = await loadCorpus();
  for (const reason of corpus.skipped) console.log(`skipped: ${reason}`);
  // Quick: our interviews and the first answers of each real part (the full run takes every answer).
  const answers = options.quick
    ? [...new Set(corpus.answers.map((a) => a.part))].flatMap((part) =>
        corpus.answers.filter((a) => a.part === part).slice(0, part === 'our interviews' ? 41 : 10),
      )
    : corpus.answers;
  const results: Record<string, RuleFigures> = {};
  const clock = new VirtualTime(realNow());
  const uninstall = clock.install();
  try {
    for (const rule of rules.filter((r) => !(options.quick && r.lever))) {
      const all: Measured[] = [];
      const began = realNow();
      for (const [i, answer] of answers.entries()) all.push(await measure(clock, answer, rule, 1 + i * 8));
      results[rule.name] = summarise(all);
      console.log(`${rule.name}: ${all.length} answers in ${Math.round((realNow() - began) / 1000)} s`);
    }
  } finally {
    uninstall();
  }
  // Met when a rule the bot can ship meets both (a lever is a what-if).
  const pass = rules
    .filter((r) => !r.lever)
    .some((r) => {
      const f = results[r.name];
      return (
        f !== undefined &&
        f.interrupted_pct <= target.interrupted_pct &&
        f.voice_to_voice_ms.p50 <= target.p50_ms
      );
    });
  return {
    rules: results,
    target,
    pass,
    corpus: {
      answers: answers.length,
      by_part: Object.fromEntries(
        [...new Set(answers.map((a) => a.part))].map((p) => [p, answers.filter((a) => a.part === p).length]),
      ),
      skipped: corpus.skipped,
    },
    assumed_service_latencies_ms: {
      transcription: services.deepgramLatency,
      daily_relay: services.dailyRelay,
      model_first_token: model.ttft,
      polly_first_byte: services.pollyFirstByte,
    },
    speaking,
    recognizer,
  };
}

export function table(result: Record<string, unknown>, options: BenchOptions): Table {
  const r = result as { rules: Record<string, RuleFigures> };
  const rows: Table = [
    [
      'rule',
      'answers interrupted (between / within sentences)',
      'voice-to-voice p50 / p95 (ms, assumed service latencies)',
      'target (≤ 5 %, p50 ≤ 800 ms)',
    ],
  ];
  for (const [rule, f] of Object.entries(r.rules)) {
    const ok = f.interrupted_pct <= target.interrupted_pct && f.voice_to_voice_ms.p50 <= target.p50_ms;
    rows.push([
      `${rule} (${f.answers} answers)`,
      `${f.interrupted_pct} % (${f.interrupted_between_sentences_pct} / ${f.interrupted_within_a_sentence_pct} %)`,
      `${f.voice_to_voice_ms.p50} / ${f.voice_to_voice_ms.p95}`,
      verdict(ok, options),
    ]);
  }
  for (const [rule, f] of Object.entries(r.rules))
    for (const [part, p] of Object.entries(f.by_part))
      rows.push([`  ${rule}: ${part}`, `${p.interrupted_pct} % of ${p.answers}`, `${p.p50_ms} / –`, '']);
  return rows;
}
