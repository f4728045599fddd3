// Extractive summary of the local engine: the most central sentences, spread over the conversation, in order.
import { posedQuestion } from './qa-pairs';
import { questionKind } from './questions';
import { contentStems, fillerCount, type Turn, tidySentence, truncateWords, wordCount, words } from './text';

export type SummaryStyle = 'prose' | 'bullets' | 'numbered';

/** What a summary-format prompt asks for, as far as the local engine honours it (README "Summary format"). */
export interface SummaryFormat {
  style: SummaryStyle;
  /** Number of sentences; undefined: scaled to the length of the conversation. */
  sentences?: number;
  /** Upper bound on the words of the whole summary. */
  maxWords?: number;
  /** Prefix each sentence with its speaker ("Marketing: …"). */
  speakers: boolean;
}

const numberWords: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
  a: 1,
  single: 1,
};
const count = '(\\d{1,3}|one|two|three|four|five|six|seven|eight|nine|ten|a|single)';

/** Reads the cheap parts of a free-text format prompt: list style, a sentence count, a word limit, speakers. */
export function parseSummaryFormat(prompt?: string): SummaryFormat {
  const p = (prompt ?? '').toLowerCase();
  const format: SummaryFormat = {
    style: /\bnumbered\b/.test(p)
      ? 'numbered'
      : /\b(?:bullet|bullets|bulleted|list|points)\b/.test(p)
        ? 'bullets'
        : 'prose',
    speakers: /\b(?:speakers?|who said|attribut\w*|names)\b/.test(p),
  };
  const n = new RegExp(
    `\\b${count}[\\s-]+(?:short\\s+|bullet\\s+|key\\s+|main\\s+)?(?:sentences?|bullets?|points?|items?|lines?|paragraph)\\b`,
  ).exec(p);
  if (n?.[1]) format.sentences = toNumber(n[1]);
  else if (/\b(?:tl;?dr|one-liner|one line)\b/.test(p)) format.sentences = 1;
  else if (/\b(?:brief|short|concise|succinct)\b/.test(p)) format.sentences = 3;
  else if (/\b(?:detailed|long|thorough|comprehensive|in-depth|extensive)\b/.test(p)) format.sentences = 10;
  const w = /(\d{1,4})\s+words?\b/.exec(p);
  if (w?.[1]) format.maxWords = Math.max(5, Number(w[1]));
  if (format.sentences !== undefined) format.sentences = Math.min(15, Math.max(1, format.sentences));
  return format;
}

function toNumber(token: string): number {
  return numberWords[token] ?? Number(token);
}

/** Sentences a summary of `totalWords` words gets when the format prompt sets none: 3 to 7. */
export function defaultSummarySentences(totalWords: number): number {
  if (totalWords < 60) return 1;
  if (totalWords < 250) return 2;
  return Math.min(7, Math.max(3, Math.round(2 + Math.log2(totalWords / 250))));
}

interface Candidate {
  order: number;
  text: string;
  speaker: string;
  stems: Set<string>;
  score: number;
  /** Position in the conversation by words spoken before it, 0..1. */
  at: number;
}

/** Sentences shorter or longer than this rarely summarise anything (fragments; run-on monologues). */
const candidateWords = { min: 8, max: 45 };
/** Two summary sentences sharing more than this (cosine of their content terms) say the same thing. */
const maxSimilarity = 0.5;
/** Words that mark a decision or an outcome in a meeting, worth a little more in a summary. */
const outcomeMarkers =
  /\b(?:decided|decision|agreed|agree on|conclusion|concluded|the plan is|we will|we'll|going to|next step|main (?:point|thing|goal)|important|the goal|our goal|key)\b/i;

/** Hedges and asides: the speaker is unsure, so the sentence informs less. */
const hedges =
  /\b(?:i don't know|i forget|i'm not sure|i can't remember|i guess|or something(?: like that)?)\b/i;

/**
 * The extractive summary: sentences scored by how central their terms are (TF-IDF against the whole
 * conversation, sentences as documents), weighted for fluency; picked greedily one per stretch of the
 * conversation (so the summary spans it), never two near-duplicates, with a penalty for over-used speakers;
 * printed in their original order.
 */
export function summarise(turns: readonly Turn[], format: SummaryFormat): string {
  const humanTurns = turns.some((t) => !t.isBot) ? turns.filter((t) => !t.isBot) : turns;
  const all: { text: string; speaker: string; stems: string[]; words: number; asks: boolean }[] = [];
  for (const t of humanTurns) {
    // The lead-in of a question ("I'm not sure which industries you work with; …") reports little.
    const asks = posedQuestion(t) !== null;
    for (const s of t.sentences) {
      const n = wordCount(s.text);
      all.push({ text: s.text, speaker: t.speaker, stems: contentStems(s.text), words: n, asks });
    }
  }
  const totalWords = all.reduce((n, s) => n + s.words, 0);
  if (totalWords === 0) return 'Nothing was said.';
  const k = format.sentences ?? defaultSummarySentences(totalWords);

  const weights = termWeights(all.map((s) => s.stems));
  let spoken = 0;
  const sentences: Candidate[] = all.map((s, order) => {
    const at = spoken / totalWords;
    spoken += s.words;
    const fits = s.words >= candidateWords.min && s.words <= candidateWords.max;
    const score = fits ? centrality(s.stems, weights) * fluency(s.text, s.words) * (s.asks ? 0.6 : 1) : 0;
    return { order, text: s.text, speaker: s.speaker, stems: new Set(s.stems), score, at };
  });
  let candidates = sentences.filter((c) => c.score > 0);
  // Only fragments: the longest of them, so the summary still says something.
  if (candidates.length === 0) candidates = sentences.map((c) => ({ ...c, score: all[c.order]!.words }));
  return render(pick(candidates, k, format.maxWords), format);
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
  for (const [t, f] of tf) {
    weights.set(t, Math.log1p(f) * Math.log(1 + n / (df.get(t) ?? 1)));
  }
  return weights;
}

function centrality(stems: string[], weights: Map<string, number>): number {
  const unique = new Set(stems);
  let sum = 0;
  for (const t of unique) sum += weights.get(t) ?? 0;
  return unique.size ? sum / Math.sqrt(unique.size + 2) : 0;
}

/** 0..1.2: fewer fillers, stutters, fragments and hedges read better; outcomes count a little more; questions less. */
function fluency(text: string, count: number): number {
  let f = 1 - Math.min(1, (3 * fillerCount(text)) / count);
  f *= 0.8 ** Math.min(stutters(text), 4);
  // Long run-on sentences read worse than the 10-30 words of a good summary sentence.
  if (count > 30) f *= Math.sqrt(30 / count);
  if (/^[a-z]/.test(text)) f *= 0.7;
  if (/\s-\s*$|[-—–]$/.test(text) || !/[.!…"'”’)]$/.test(text)) f *= 0.6;
  if (questionKind(text)) f *= 0.5;
  if (/\[(?:unintelligible|inaudible|crosstalk)/i.test(text)) f *= 0.7;
  if (hedges.test(text)) f *= 0.7;
  if (outcomeMarkers.test(text)) f *= 1.2;
  return f;
}

/**
 * Greedy choice: the conversation is cut into `k` stretches of equal length; each round takes the best
 * candidate of a stretch that has none yet. A candidate too similar to a chosen one is out; a speaker who
 * already has sentences in the summary costs 15% per sentence. With a word limit, stops before passing it.
 */
function pick(candidates: Candidate[], k: number, maxWords?: number): Candidate[] {
  const chosen: Candidate[] = [];
  const bySpeaker = new Map<string, number>();
  const stretches = new Set<number>();
  const stretchOf = (c: Candidate) => Math.min(k - 1, Math.floor(c.at * k));
  let usedWords = 0;
  while (chosen.length < k) {
    let best: Candidate | null = null;
    let bestScore = 0;
    const open = stretches.size < k;
    for (const c of candidates) {
      if (chosen.includes(c) || (open && stretches.has(stretchOf(c)))) continue;
      if (chosen.some((x) => cosine(x.stems, c.stems) > maxSimilarity)) continue;
      const adjusted = c.score * 0.85 ** (bySpeaker.get(c.speaker) ?? 0);
      if (adjusted > bestScore) {
        best = c;
        bestScore = adjusted;
      }
    }
    if (!best) {
      if (open && stretches.size > 0) {
        // Nothing left in the open stretches: let the others give a second sentence.
        for (let i = 0; i < k; i++) stretches.add(i);
        continue;
      }
      break;
    }
    const n = wordCount(best.text);
    if (maxWords !== undefined && usedWords + n > maxWords) {
      if (chosen.length === 0) chosen.push({ ...best, text: truncateWords(best.text, maxWords) });
      break;
    }
    usedWords += n;
    chosen.push(best);
    stretches.add(stretchOf(best));
    bySpeaker.set(best.speaker, (bySpeaker.get(best.speaker) ?? 0) + 1);
  }
  return chosen.sort((a, b) => a.order - b.order);
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

function cosine(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const t of a) if (b.has(t)) shared++;
  return shared / Math.sqrt(a.size * b.size);
}

function render(sentences: { text: string; speaker: string }[], format: SummaryFormat): string {
  const lines = sentences.map((s) => {
    const text = tidySentence(s.text);
    return format.speakers ? `${s.speaker}: ${text}` : text;
  });
  if (format.style === 'bullets') return lines.map((l) => `- ${l}`).join('\n');
  if (format.style === 'numbered') return lines.map((l, i) => `${i + 1}. ${l}`).join('\n');
  return lines.join(' ');
}
