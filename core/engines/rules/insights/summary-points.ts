// What a meeting was about, part by part: its topics, who led each part, and the sentence that says the most there.
import { posedQuestion } from './qa-pairs';
import { questionKind } from './questions';
import { meetingTopics } from './summary-topics';
import { hasVerbForm, reportedSpeech } from './summary-voice';
import { contentStems, fillerCount, sharedCount, type Turn, wordCount, words } from './text';

/** A sentence of a participant with what the summary needs to weigh it. */
export interface SpokenSentence {
  text: string;
  speaker: string;
  turn: number;
  words: number;
  stems: string[];
  /** The sentence leads in to a question put to the others ("I'm not sure which industries…; which?"). */
  asks: boolean;
}

/** The participants' sentences in order; the bot's are left out when anyone else spoke. */
export function participantSentences(turns: readonly Turn[]): SpokenSentence[] {
  const human = turns.some((t) => !t.isBot);
  return turns.flatMap((t, turn) => {
    if (human && t.isBot) return [];
    const asks = posedQuestion(t) !== null;
    return t.sentences.map(({ text }) => ({
      text,
      speaker: t.speaker,
      turn,
      words: wordCount(text),
      stems: contentStems(text),
      asks,
    }));
  });
}

export interface MeetingPart {
  /** The speaker who said most in this part, and their share of its words. */
  lead: string;
  share: number;
  /** Key phrases of the part not already named for the meeting or an earlier part ("the scroll wheel"). */
  topics: string[];
  /** The part's most central sentence as reported speech ("Marketing said that…"), if any reads well. */
  point: string | null;
}

/** Sentences shorter or longer than this rarely summarise anything (fragments; run-on monologues). */
const candidateWords = { min: 8, max: 30 };
/** Two chosen sentences sharing more than this (cosine of their content terms) say the same thing. */
const maxSimilarity = 0.5;
/** Words that mark a decision or an outcome, worth a little more in a summary. */
const outcomeMarkers =
  /\b(?:decided|decision|agreed|agree on|conclusion|concluded|the plan is|we will|we'll|going to|next step|main (?:point|thing|goal)|important|the goal|our goal|key)\b/i;

export interface PartOptions {
  parts: number;
  /** Topics named so far (the meeting's); each part adds its own, so no topic is named twice. */
  named: Set<string>;
  /** Names that address someone mid-sentence, dropped from reported speech. */
  vocatives: ReadonlySet<string>;
  /** Sentences the summary tells elsewhere (as a decision or a next step), not to be told again. */
  told: ReadonlySet<SpokenSentence>;
}

/**
 * The meeting cut into `parts` stretches of equal length in words (whole turns); for each: who said most,
 * its key phrases not named before, and its most central sentence, reported.
 */
export function meetingParts(
  turns: readonly Turn[],
  sentences: readonly SpokenSentence[],
  { parts, named, vocatives, told }: PartOptions,
): MeetingPart[] {
  const total = sentences.reduce((n, s) => n + s.words, 0);
  if (total === 0) return [];
  const weights = termWeights(sentences.map((s) => s.stems));
  const bounds: number[] = [0];
  let spoken = 0;
  let at = 0;
  for (let p = 1; p < parts; p++) {
    while (at < sentences.length && spoken < (total * p) / parts) spoken += sentences[at++]!.words;
    // Parts end at a turn's end, so a turn is told in one part.
    while (at < sentences.length && sentences[at]!.turn === sentences[at - 1]?.turn) {
      spoken += sentences[at++]!.words;
    }
    bounds.push(at);
  }
  bounds.push(sentences.length);

  const chosen: Set<string>[] = [];
  const result: MeetingPart[] = [];
  for (let p = 0; p < parts; p++) {
    const slice = sentences.slice(bounds[p], bounds[p + 1]);
    if (slice.length === 0) continue;
    const byWords = new Map<string, number>();
    for (const s of slice) byWords.set(s.speaker, (byWords.get(s.speaker) ?? 0) + s.words);
    const [lead, leadWords] = [...byWords.entries()].sort((a, b) => b[1] - a[1])[0]!;
    const partWords = slice.reduce((n, s) => n + s.words, 0);
    const firstTurn = slice[0]!.turn;
    const lastTurn = slice.at(-1)!.turn + 1;
    const topics = meetingTopics(turns.slice(firstTurn, lastTurn), 3, named);
    for (const t of topics) named.add(t.key);

    let best: { s: SpokenSentence; score: number } | null = null;
    for (const s of slice) {
      if (s.words < candidateWords.min || s.words > candidateWords.max || told.has(s)) continue;
      if (chosen.some((c) => cosine(c, new Set(s.stems)) > maxSimilarity)) continue;
      const score = centrality(s.stems, weights) * fluency(s.text, s.words) * (s.asks ? 0.6 : 1);
      if (score > 0 && (!best || score > best.score)) best = { s, score };
    }
    const point = best ? reportedSpeech(best.s.text, best.s.speaker, vocatives) : null;
    if (best) chosen.push(new Set(best.s.stems));
    result.push({
      lead,
      share: leadWords / Math.max(1, partWords),
      topics: topics.map((t) => t.text),
      point,
    });
  }
  return result;
}

/** TF-IDF weight of each term over the whole conversation (sentences as documents). */
function termWeights(sentences: string[][]): Map<string, number> {
  const tf = new Map<string, number>();
  const df = new Map<string, number>();
  for (const stems of sentences) {
    for (const t of stems) tf.set(t, (tf.get(t) ?? 0) + 1);
    for (const t of new Set(stems)) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const n = sentences.length;
  const weights = new Map<string, number>();
  for (const [t, f] of tf) weights.set(t, Math.log1p(f) * Math.log(1 + n / (df.get(t) ?? 1)));
  return weights;
}

function centrality(stems: string[], weights: Map<string, number>): number {
  const unique = new Set(stems);
  let sum = 0;
  for (const t of unique) sum += weights.get(t) ?? 0;
  return unique.size ? sum / Math.sqrt(unique.size + 2) : 0;
}

/** Openers skipped before looking at how a sentence starts ("so, and, yeah…"). */
const lead = String.raw`^(?:\W*(?:so|and|but|well|yeah|okay|now|um|uh)\W+)*`;
/** What makes a spoken sentence a poor summary point, and the factor it costs. */
const weaknesses: [RegExp, number][] = [
  // Fragments: lower-case start, broken off, unclosed.
  [/^[a-z]/, 0.7],
  [/\s-\s*$|[-—–]$|[^.!…"'”’)]$/, 0.6],
  [/\[(?:unintelligible|inaudible|crosstalk)/i, 0.7],
  // The speaker is unsure.
  [/\b(?:i don't know|i forget|i'm not sure|i can't remember|i guess|or something(?: like that)?)\b/i, 0.7],
  // "You" in a meeting mostly addresses someone, which reads oddly once reported.
  [/\byou\b/i, 0.7],
  // Speech reported inside speech, and quotes.
  [/\b(?:said|says|told|asked)\b|["“”]/i, 0.6],
  // An opening that points back to something said before ("that's the other solution").
  [new RegExp(`${lead}(?:that|this|it|they|those|these|he|she|which)\\b`, 'i'), 0.7],
  // A subordinate clause alone ("'cause the speaker was…", "to try and…") is half a thought.
  [new RegExp(`${lead}(?:because|'cause|cause|cos|if|when|which|as|unless|whereas|to)\\b`, 'i'), 0.4],
  // An instruction to the room ("try to guess who…", "let me show you") reports nothing.
  [new RegExp(`${lead}(?:try|let|look|see|go|come|tell|remember|imagine|guess|wait|listen)\\b`, 'i'), 0.5],
  // Running the meeting ("okay, we should begin", "meetings finish when…") is not what it was about.
  [/^(?=.*\b(?:meetings?|begin|start|finish)\b).*\b(?:begin|start|finish|end|close)\w*\b/i, 0.5],
];

/**
 * 0..1.2, how well a sentence reads as a point of the summary: fillers, stutters, long run-ons, questions,
 * verbless lists and the weaknesses above cost; outcomes ("we decided", "the goal") count a little more.
 */
function fluency(text: string, count: number): number {
  let f = 1 - Math.min(1, (3 * fillerCount(text)) / count);
  f *= 0.8 ** Math.min(stutters(text), 4);
  // Long run-on sentences read worse than the 10-30 words of a good summary sentence.
  if (count > 30) f *= Math.sqrt(30 / count);
  if (questionKind(text)) f *= 0.5;
  // No verb form a reader can see ("audio settings, screen settings, even teletext"): a list, not a point.
  if (!hasVerbForm(text)) f *= 0.6;
  for (const [pattern, factor] of weaknesses) if (pattern.test(text)) f *= factor;
  if (outcomeMarkers.test(text)) f *= 1.2;
  return f;
}

/** Stutters and restarts: a word said twice in a row ("to to") or a word pair said again ("just editing"). */
function stutters(text: string): number {
  const ws = words(text);
  const pairs = new Set<string>();
  let n = 0;
  for (let i = 1; i < ws.length; i++) {
    const pair = `${ws[i - 1]} ${ws[i]}`;
    if (ws[i] === ws[i - 1] || pairs.has(pair)) n++;
    pairs.add(pair);
  }
  return n;
}

const cosine = (a: Set<string>, b: Set<string>): number =>
  a.size && b.size ? sharedCount(a, b) / Math.sqrt(a.size * b.size) : 0;
