// Rule-based evaluation of the local engine: measurable features → overall_score, strengths and weaknesses.
//
// Components of overall_score (each 0..1; README.md "Evaluation" has the same table):
//
// | component   | feature                                              | 0 at        | 1 at       | weight |
// |-------------|------------------------------------------------------|-------------|------------|--------|
// | answered    | questions answered / questions put to others          | 0%          | 100%       | 0.25   |
// | depth       | median words per answer                              | ≤ 5 words   | ≥ 40 words | 0.20   |
// | specificity | answers with numbers, names or "for example"          | 0%          | ≥ 50%      | 0.15   |
// | relevance   | answers engaging with their question (see below)      | 0%          | ≥ 80%      | 0.10   |
// | balance     | evenness of words among human speakers (entropy)      | one voice   | all equal  | 0.10   |
// | clarity     | fillers (um, uh, you know, I mean…) per 100 words     | ≥ 6         | 0          | 0.20   |
//
// An answer engages with its question when it does not dodge it ("I don't know") and either picks up a key
// term of the question or runs to 25+ words. Questions put to the bot, and the bot's answers, are not counted.
// A component that cannot be measured (no questions: answered/depth/relevance; fewer than two human
// speakers: balance) is left out and the others are re-weighted; with no questions, specificity is measured
// over all turns of 10+ words instead of answers. An analysis prompt that names a component's theme doubles
// its weight (see `promptCues`). overall_score = round(100 × weighted mean).

import type { Utterance } from '../bots/transcript';
import type { ExtractedPair, QaExtraction } from './qa-pairs';
import { contentStems, fillerCount, isBotUtterance, splitSentences, wordCount } from './text';

export type Component = 'answered' | 'depth' | 'specificity' | 'relevance' | 'balance' | 'clarity';

export const defaultWeights: Readonly<Record<Component, number>> = {
  answered: 0.25,
  depth: 0.2,
  specificity: 0.15,
  relevance: 0.1,
  balance: 0.1,
  clarity: 0.2,
};

/** Words in an analysis prompt that double a component's weight. */
export const promptCues: Readonly<Record<Component, RegExp>> = {
  answered: /\b(?:answer(?:ed|s|ing)?|responsive\w*|respond\w*)\b/i,
  depth: /\b(?:depth|detail\w*|thorough\w*|elaborat\w*|in-depth)\b/i,
  specificity: /\b(?:specific\w*|examples?|concrete|evidence|data|numbers|metrics|facts)\b/i,
  relevance: /\b(?:relevan\w*|on[- ]topic|focus\w*|to the point)\b/i,
  balance: /\b(?:participat\w*|balance\w*|engag\w*|collaborat\w*|inclusiv\w*|everyone|teamwork)\b/i,
  clarity: /\b(?:clarity|clear\w*|concise\w*|fillers?|communicat\w*|articulat\w*|fluen\w*)\b/i,
};

/** Thresholds for the strength and weakness sentences (README.md "Evaluation"). */
export const thresholds = {
  answered: { strong: 0.8, weak: 0.5 },
  depthWords: { strong: 30, weak: 10 },
  specificity: { strong: 0.4, weak: 0.15 },
  relevance: { strong: 0.7, weak: 0.4 },
  balance: { strong: 0.8, weak: 0.5 },
  fillersPer100: { strong: 1.5, weak: 4 },
  actionItems: { strong: 2 },
  /** Fewer words than this: too little to judge. */
  minWords: 50,
} as const;

export interface ConversationFeatures {
  words: number;
  /** Distinct speakers, the bot included. */
  speakers: number;
  humanSpeakers: number;
  questionsAsked: number;
  questionsAnswered: number;
  answeredRatio: number | null;
  medianAnswerWords: number | null;
  /** Share of answers (or, with no answers, of turns of 10+ words) with numbers, names or examples. */
  specificRatio: number | null;
  relevantRatio: number | null;
  /** Normalised entropy of the words of the human speakers, 0..1; null with fewer than two of them. */
  balance: number | null;
  dominant: { speaker: string; share: number } | null;
  fillersPer100: number;
  actionItems: number;
}

export interface Evaluation {
  overall_score: number;
  strengths: string[];
  weaknesses: string[];
  components: Partial<Record<Component, number>>;
}

/** Specifics: a figure, a number word, a currency or percent, an example marker, or a named thing. */
const specifics =
  /\d|\b(?:hundred|thousand|million|billion|percent|dozen|twice|half)\b|[%$€£]|\b(?:for example|for instance|such as|e\.g\.|specifically|in particular|case study)\b/i;

export function measure(
  utterances: readonly Utterance[],
  qa: QaExtraction,
  actionItems: number,
  botName?: string,
): ConversationFeatures {
  const human = utterances.filter((u) => !isBotUtterance(u, botName));
  const wordsBy = new Map<string, number>();
  let fillers = 0;
  let humanWords = 0;
  for (const u of human) {
    const n = wordCount(u.text);
    wordsBy.set(u.speaker, (wordsBy.get(u.speaker) ?? 0) + n);
    fillers += fillerCount(u.text);
    humanWords += n;
  }
  const allSpeakers = new Set(utterances.map((u) => u.speaker));
  const words = utterances.reduce((n, u) => n + wordCount(u.text), 0);

  // Judge the people: questions put to the bot, and the bot's answers, do not count.
  const answers: ExtractedPair[] = qa.pairs.filter((p) => !p.answeredByBot);
  const asked = qa.asked.filter((q) => !q.toBot).length;
  const answered = answers.length;

  let specificRatio: number | null = null;
  if (answers.length) specificRatio = ratio(answers, (p) => isSpecific(p.answer));
  else {
    const long = human.filter((u) => wordCount(u.text) >= 10);
    if (long.length) specificRatio = ratio(long, (u) => isSpecific(u.text));
  }

  const speakersWords = [...wordsBy.entries()].filter(([, n]) => n > 0);
  let balance: number | null = null;
  let dominant: ConversationFeatures['dominant'] = null;
  if (speakersWords.length >= 2 && humanWords > 0) {
    const shares = speakersWords.map(([, n]) => n / humanWords);
    balance = -shares.reduce((h, p) => h + p * Math.log(p), 0) / Math.log(shares.length);
    const [speaker, n] = speakersWords.reduce((a, b) => (b[1] > a[1] ? b : a));
    dominant = { speaker, share: n / humanWords };
  }

  return {
    words,
    speakers: allSpeakers.size,
    humanSpeakers: speakersWords.length,
    questionsAsked: asked,
    questionsAnswered: answered,
    answeredRatio: asked ? Math.min(1, answered / asked) : null,
    medianAnswerWords: answers.length ? median(answers.map((p) => p.answerWords)) : null,
    specificRatio,
    relevantRatio: answers.length ? ratio(answers, isRelevant) : null,
    balance,
    dominant,
    fillersPer100: humanWords ? (100 * fillers) / humanWords : 0,
    actionItems,
  };
}

function isSpecific(text: string): boolean {
  if (specifics.test(text)) return true;
  // Two or more capitalised words inside sentences (not "I"): names of products, places, people.
  let names = 0;
  for (const s of splitSentences(text)) {
    names += (s.slice(1).match(/\s(?!I\b)[A-Z][a-z]+/g) ?? []).length;
  }
  return names >= 2;
}

/** "I don't know", "no idea", "pass": the answer dodges the question. */
const evasive =
  /\b(?:i (?:do ?n[o']t|dunno) know|no idea|not sure|can't (?:say|remember|recall)|no comment|pass)\b/i;

/**
 * An answer engages with its question when it does not dodge it and either picks up one of its key terms
 * (compared on their first five letters: "disagree" ~ "disagreements") or is developed (25+ words).
 */
function isRelevant(pair: ExtractedPair): boolean {
  if (evasive.test(pair.answer) && pair.answerWords < 25) return false;
  if (pair.answerWords >= 25) return true;
  const key = (t: string) => t.slice(0, 5);
  const asked = new Set(contentStems(pair.question).map(key));
  return contentStems(pair.answer).some((t) => asked.has(key(t)));
}

function ratio<T>(items: readonly T[], test: (item: T) => boolean): number {
  return items.filter(test).length / items.length;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

const clamp01 = (x: number) => Math.min(1, Math.max(0, x));

/** Each measurable component, 0..1 (see the table at the top). */
export function components(f: ConversationFeatures): Partial<Record<Component, number>> {
  const c: Partial<Record<Component, number>> = {};
  if (f.answeredRatio !== null) c.answered = f.answeredRatio;
  if (f.medianAnswerWords !== null) c.depth = clamp01((f.medianAnswerWords - 5) / 35);
  if (f.specificRatio !== null) c.specificity = clamp01(f.specificRatio / 0.5);
  if (f.relevantRatio !== null) c.relevance = clamp01(f.relevantRatio / 0.8);
  if (f.balance !== null) c.balance = f.balance;
  if (f.words > 0) c.clarity = clamp01(1 - f.fillersPer100 / 6);
  return c;
}

/** Component weights after the analysis prompt: a component whose theme the prompt names weighs double. */
export function weightsFor(analysisPrompt?: string): Record<Component, number> {
  const w = { ...defaultWeights };
  if (!analysisPrompt) return w;
  for (const k of Object.keys(w) as Component[]) if (promptCues[k].test(analysisPrompt)) w[k] *= 2;
  return w;
}

export function evaluate(f: ConversationFeatures, analysisPrompt?: string): Evaluation {
  if (f.words === 0) {
    return {
      overall_score: 0,
      strengths: [],
      weaknesses: ['Nothing was said, so there is nothing to evaluate.'],
      components: {},
    };
  }
  const c = components(f);
  const w = weightsFor(analysisPrompt);
  let sum = 0;
  let total = 0;
  for (const [k, v] of Object.entries(c) as [Component, number][]) {
    sum += w[k] * v;
    total += w[k];
  }
  const overall = total ? Math.round((100 * sum) / total) : 0;
  const { strengths, weaknesses } = describe(f, c);
  return { overall_score: overall, strengths, weaknesses, components: c };
}

const pct = (x: number) => `${Math.round(100 * x)}%`;
const one = (x: number) => (Math.round(x * 10) / 10).toString();

/** Human-readable sentences for every feature past a threshold; never both lists empty. */
function describe(f: ConversationFeatures, c: Partial<Record<Component, number>>) {
  const strengths: string[] = [];
  const weaknesses: string[] = [];
  const t = thresholds;

  if (f.words < t.minWords)
    weaknesses.push(`The conversation is very short (${f.words} words), so this evaluation is tentative.`);
  if (f.speakers === 1) weaknesses.push('Only one person spoke; there was no exchange to evaluate.');

  if (f.answeredRatio !== null) {
    const missed = f.questionsAsked - f.questionsAnswered;
    if (f.answeredRatio >= t.answered.strong)
      strengths.push(
        `Questions got answers: ${f.questionsAnswered} of ${f.questionsAsked} (${pct(f.answeredRatio)}).`,
      );
    else if (f.answeredRatio < t.answered.weak)
      weaknesses.push(`Many questions went unanswered: ${missed} of ${f.questionsAsked} got no answer.`);
  } else if (f.speakers > 1 && f.words >= t.minWords) {
    weaknesses.push('No questions were asked, so there was little back-and-forth to draw answers out.');
  }

  if (f.medianAnswerWords !== null) {
    const m = Math.round(f.medianAnswerWords);
    if (f.medianAnswerWords >= t.depthWords.strong)
      strengths.push(`Answers are developed (median ${m} words per answer).`);
    else if (f.medianAnswerWords < t.depthWords.weak)
      weaknesses.push(`Answers are brief (median ${m} words per answer); more detail would help.`);
  }

  if (f.specificRatio !== null) {
    const of = f.medianAnswerWords !== null ? 'answers' : 'longer turns';
    if (f.specificRatio >= t.specificity.strong)
      strengths.push(`Concrete specifics: ${pct(f.specificRatio)} of ${of} cite numbers, names or examples.`);
    else if (f.specificRatio < t.specificity.weak)
      weaknesses.push(
        f.specificRatio === 0
          ? `No specifics: none of the ${of} cite numbers, names or examples.`
          : `Few specifics: only ${pct(f.specificRatio)} of ${of} cite numbers, names or examples.`,
      );
  }

  if (f.relevantRatio !== null) {
    if (f.relevantRatio >= t.relevance.strong)
      strengths.push(`Answers engage with their questions (${pct(f.relevantRatio)} of them).`);
    else if (f.relevantRatio < t.relevance.weak)
      weaknesses.push(
        f.relevantRatio === 0
          ? 'Answers dodge or miss their questions: none engages with its question.'
          : `Answers often dodge or miss their questions: only ${pct(f.relevantRatio)} engage with them.`,
      );
  }

  if (f.balance !== null && f.dominant) {
    if (f.balance >= t.balance.strong)
      strengths.push(`Balanced participation across ${f.humanSpeakers} speakers.`);
    else if (f.balance < t.balance.weak)
      weaknesses.push(
        `One voice dominated: ${f.dominant.speaker} spoke ${pct(f.dominant.share)} of the words.`,
      );
  }

  if (f.fillersPer100 <= t.fillersPer100.strong)
    strengths.push(`Clear delivery with few fillers (${one(f.fillersPer100)} per 100 words).`);
  else if (f.fillersPer100 > t.fillersPer100.weak)
    weaknesses.push(
      `Frequent fillers such as "um", "uh" and "you know" (${one(f.fillersPer100)} per 100 words).`,
    );

  if (f.actionItems >= t.actionItems.strong)
    strengths.push(`Concrete next steps were stated (${f.actionItems} action items).`);

  // Every evaluation names at least one of each: the best and the worst measured component.
  const ranked = (Object.entries(c) as [Component, number][]).sort((a, b) => b[1] - a[1]);
  if (strengths.length === 0 && ranked.length) {
    const [k, v] = ranked[0]!;
    strengths.push(`Relatively strongest area: ${labels[k]} (${Math.round(100 * v)}/100).`);
  }
  if (weaknesses.length === 0 && ranked.length) {
    const [k, v] = ranked.at(-1)!;
    weaknesses.push(`Most room to improve: ${labels[k]} (${Math.round(100 * v)}/100).`);
  }
  return { strengths, weaknesses };
}

const labels: Record<Component, string> = {
  answered: 'answering the questions asked',
  depth: 'depth of answers',
  specificity: 'concrete specifics',
  relevance: 'engaging with the questions',
  balance: 'balance of participation',
  clarity: 'clarity of speech (few fillers)',
};
