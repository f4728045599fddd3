// A transcript's answer spoken aloud and transcribed as it is spoken: the words at a conversational rate, silent pauses
// between and inside its sentences drawn from a published distribution of pauses inside real turns, and what the bot
// receives of it — a streaming recognizer's interim and final results (Deepgram through Daily) and the page's audio
// activity — each at the time it arrives. docs/benchmarks.md (turn-taking) gives the figures and their sources.
import type { RoomEvents } from '../core/ports/room-provider';
import { type Dist, sample } from './random';

export const speaking = {
  /** 2.5 words a second (150 a minute), as bench/voice.ts speaks. */
  wordMs: 400,
  /**
   * Silent pauses inside a person's turn, as survival points (seconds, share of pauses longer): LiveKit's eot-bench,
   * English, the silence-only ("VAD baseline") operating points — its false cut-off rate at a wait is the share of the
   * turn-internal pauses of 0.2–5 s longer than that wait: 55.6 % at 0.3 s, 21.7 % at 0.6 s, 10 % at 1.0 s, 5 % at
   * 1.6 s (https://github.com/livekit/eot-bench, README and output/…/en/comparison/report.md). Between the points
   * the share falls as a power of the length; past 1.6 s the last segment's power goes on, up to eot-bench's 5 s.
   */
  pauseSurvival: [
    [0.2, 1],
    [0.3, 0.556],
    [0.6, 0.217],
    [1.0, 0.1],
    [1.6, 0.05],
  ] as const,
  pauseMaxS: 5,
  /** A pause where a sentence is only interrupted (after a comma, around an "um"): how often (assumed). */
  withinSentencePauseShare: 0.5,
};

export const recognizer = {
  /** Deepgram's endpointing as the bot sets it (TRANSCRIPTION_ENDPOINTING_MS): a final after this much silence. */
  endpointingMs: 200,
  /** While a person speaks, an interim result every this often (bench/voice.ts; assumed). */
  interimEveryMs: [250, 500] as const,
  /** An interim whose last word is a guess the next result corrects (assumed). */
  changedWordShare: 0.1,
  /** Finals at a sentence's end whose mark Deepgram left off (bench/voice.ts; assumed). */
  unpunctuatedShare: 0.1,
  /** Finals at a pause inside a sentence that Deepgram closes with a period (assumed). */
  falsePeriodShare: 0.1,
  /** Daily's audio-level observer: every 200 ms, an activity event at most once a second (the bot's page). */
  levelEveryMs: 200,
  activityEveryMs: 1_000,
};

/** Hesitations: Deepgram leaves "uh" and "um" out of its transcript unless asked (filler_words, default false). */
const filler = /^(?:um+|uh+|erm|er|hmm+|mm+|uhm)[,.?!]*$/i;

export type PauseKind = 'between sentences' | 'within a sentence';

export interface Pause {
  /** From the end of the word before it to the start of the next, ms since the answer began. */
  start: number;
  end: number;
  kind: PauseKind;
}

/** One thing the bot receives, at `at` ms since the answer began. */
export type Received =
  | { at: number; utterance: RoomEvents['utterance'] }
  | { at: number; activity: RoomEvents['audio-activity'] };

export interface SpokenAnswer {
  received: Received[];
  pauses: Pause[];
  /** When the last word ended: the true end of the turn. */
  end: number;
  /** The final results' texts in order (what the transcript records). */
  finals: string[];
}

/** A silent pause's length (ms), drawn from `speaking.pauseSurvival`. */
export function pauseMs(random: () => number): number {
  const points = speaking.pauseSurvival;
  const u = 1 - random();
  for (let i = 1; i < points.length; i++) {
    const [t0, s0] = points[i - 1]!;
    const [t1, s1] = points[i]!;
    if (u >= s1) return 1000 * t0 * (u / s0) ** (Math.log(t1 / t0) / Math.log(s1 / s0));
  }
  const [t0, s0] = points.at(-2)!;
  const [t1, s1] = points.at(-1)!;
  const t = t1 * (u / s1) ** (Math.log(t1 / t0) / Math.log(s1 / s0));
  return 1000 * Math.min(speaking.pauseMaxS, t);
}

interface Word {
  /** As the transcript writes it, punctuation included. */
  text: string;
  filler: boolean;
  start: number;
  end: number;
}

const bare = (w: string) => w.replace(/[.,?!;:]+$/, '');

/**
 * The answer spoken and transcribed: `sentences` at `speaking.wordMs` a word, a pause after every sentence but the
 * last, and after a comma or around a hesitation within `speaking.withinSentencePauseShare` of the time; each run of
 * words between two pauses is one segment of the recognizer (interims while spoken, a final after the endpointing
 * silence). Each result reaches the bot `lag()` after the audio it transcribes (in order: one WebSocket).
 */
export function speakAnswer(
  sentences: readonly string[],
  random: () => number,
  latency: { transcription: Dist; relay: Dist },
  /** Activity reported at once when speech resumes after a pause, not only once a second (not what the page does). */
  onsetActivity = false,
  who = { participantId: 'ann', name: 'Ann' },
): SpokenAnswer {
  const segments: Word[][] = [[]];
  const pauses: Pause[] = [];
  let t = 0;
  sentences.forEach((sentence, si) => {
    const ws = sentence.split(/\s+/).filter(Boolean);
    ws.forEach((text, wi) => {
      const word: Word = { text, filler: filler.test(text), start: t, end: t + speaking.wordMs };
      segments.at(-1)!.push(word);
      t = word.end;
      const lastOfSentence = wi === ws.length - 1;
      if (lastOfSentence && si === sentences.length - 1) return;
      let kind: PauseKind | undefined;
      if (lastOfSentence) kind = 'between sentences';
      else if (
        (/,$/.test(text) || word.filler || filler.test(ws[wi + 1]!)) &&
        random() < speaking.withinSentencePauseShare
      )
        kind = 'within a sentence';
      if (!kind) return;
      const length = pauseMs(random);
      pauses.push({ start: t, end: t + length, kind });
      t += length;
      segments.push([]);
    });
  });
  const end = t;
  const received: Received[] = [];
  const finals: string[] = [];
  const lag = () => sample(random, latency.transcription) + sample(random, latency.relay);
  const utterance = (text: string, final: boolean): RoomEvents['utterance'] => ({
    ...who,
    text,
    final,
    at: new Date(0).toISOString(),
    ...(final && { speechFinal: true }),
  });
  const allWords = segments.flat().filter((w) => !w.filler);
  segments.forEach((segment, i) => {
    const heard = segment.filter((w) => !w.filler);
    const stop = segment.at(-1)?.end ?? 0;
    if (heard.length) {
      // While spoken: the words begun so far (the last one guessed from its start), the last one's mark not yet known,
      // now and then that last word misheard.
      const from = segment[0]!.start;
      for (let at = from + interimGap(random); at < stop; at += interimGap(random)) {
        const said = heard.filter((w) => w.start < at);
        if (!said.length) continue;
        const texts = said.map((w) => w.text);
        texts[texts.length - 1] =
          random() < recognizer.changedWordShare
            ? bare(allWords[Math.floor(random() * allWords.length)]!.text)
            : bare(texts.at(-1)!);
        received.push({ at: at + lag(), utterance: utterance(texts.join(' '), false) });
      }
      // Once the speaker stops: every word with the segment's end as Deepgram punctuates it, then the final.
      const text = segmentText(
        heard,
        i === segments.length - 1 || pauses[i]!.kind === 'between sentences',
        random,
      );
      received.push({ at: stop + lag(), utterance: utterance(text, false) });
      received.push({ at: stop + recognizer.endpointingMs + lag(), utterance: utterance(text, true) });
      finals.push(text);
    }
  });
  // Results come in the order of the audio they transcribe: a late one holds up the next.
  let last = 0;
  for (const r of received) {
    r.at = Math.max(r.at, last);
    last = r.at;
  }
  received.push(...activity(segments, random, who.participantId, onsetActivity));
  received.sort((a, b) => a.at - b.at);
  return { received, pauses, end, finals };
}

const interimGap = (random: () => number) =>
  recognizer.interimEveryMs[0] + random() * (recognizer.interimEveryMs[1] - recognizer.interimEveryMs[0]);

/** A segment's final text: a sentence keeps its mark (now and then left off), a fragment now and then gets a period. */
function segmentText(heard: Word[], endsSentence: boolean, random: () => number): string {
  const texts = heard.map((w) => w.text);
  const lastWord = texts.at(-1)!;
  if (endsSentence) {
    if (random() < recognizer.unpunctuatedShare) texts[texts.length - 1] = bare(lastWord);
  } else if (random() < recognizer.falsePeriodShare) texts[texts.length - 1] = `${bare(lastWord)}.`;
  else if (!/,$/.test(lastWord)) texts[texts.length - 1] = bare(lastWord);
  return texts.join(' ');
}

/**
 * The page's audio activity: a level sample every 200 ms, reported at most once a second while the person speaks
 * (with `onset`, also at the first sample of each run of speech).
 */
function activity(
  segments: Word[][],
  random: () => number,
  participantId: string,
  onset: boolean,
): Received[] {
  const out: Received[] = [];
  let lastAt = Number.NEGATIVE_INFINITY;
  const phase = random() * recognizer.levelEveryMs;
  for (const segment of segments) {
    if (!segment.length) continue;
    const from = segment[0]!.start;
    const to = segment.at(-1)!.end;
    let at = phase + Math.ceil((from - phase) / recognizer.levelEveryMs) * recognizer.levelEveryMs;
    for (let first = true; at < to; at += recognizer.levelEveryMs, first = false) {
      if (at - lastAt < recognizer.activityEveryMs && !(onset && first)) continue;
      lastAt = at;
      out.push({ at, activity: { participantId, active: true } });
    }
  }
  return out;
}
