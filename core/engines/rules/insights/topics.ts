// Topics (recurring key phrases) and action items (commitments and next steps) of a conversation.
import { questionKind } from './questions';
import type { Turn } from './text';
import {
  endsSentence,
  fillerCount,
  isContentWord,
  stem,
  tidySentence,
  wordCount,
  wordSet,
  words,
} from './text';

/** How many topics and action items the insights carry at most. */
const maxTopics = 8;
const maxActionItems = 8;

interface PhraseStats {
  count: number;
  /** Surface forms as spoken, to show the most frequent one. */
  forms: Map<string, number>;
  first: number;
}

/**
 * Key phrases: runs of content words (RAKE-style: stop words and punctuation split them) cut into 1-3 word
 * n-grams, counted over the conversation. A phrase of n words scores count × (1 + 0.5·(n−1)); a phrase must
 * recur (twice for 2-3 words, three times for one word). A phrase and a longer phrase holding at least half
 * of its uses are one topic, shown as the longer phrase. Speakers' names are not topics.
 */
export function extractTopics(turns: readonly Turn[], limit = maxTopics): string[] {
  const nameParts = new Set(turns.flatMap((t) => words(t.speaker)));
  const stats = new Map<string, PhraseStats>();
  let position = 0;
  for (const turn of turns) {
    for (const sentence of turn.sentences) {
      for (const run of contentRuns(sentence.text, nameParts)) {
        for (let n = 1; n <= 3; n++) {
          for (let i = 0; i + n <= run.length; i++) {
            const gram = run.slice(i, i + n);
            const key = gram.map(stem).join(' ');
            const entry = stats.get(key) ?? { count: 0, forms: new Map(), first: position };
            entry.count++;
            const form = gram.join(' ');
            entry.forms.set(form, (entry.forms.get(form) ?? 0) + 1);
            stats.set(key, entry);
          }
        }
        position++;
      }
    }
  }
  const ranked = [...stats.entries()]
    .map(([key, s]) => ({ key, n: key.split(' ').length, ...s }))
    // One word must be a noun-like word of four letters or more (no "-ly" adverbs).
    .filter(
      (p) => p.count >= (p.n === 1 ? 3 : 2) && (p.n > 1 || (p.key.length >= 4 && !p.key.endsWith('ly'))),
    )
    .map((p) => ({ ...p, score: p.count * (1 + 0.5 * (p.n - 1)) }))
    .sort((a, b) => b.score - a.score || a.first - b.first);

  const chosen: typeof ranked = [];
  for (const p of ranked) {
    if (chosen.length >= limit) break;
    // "remote" is no topic of its own when "remote control" holds most of its uses …
    if (chosen.some((c) => contains(c.key, p.key) && c.count * 2 >= p.count)) continue;
    // … and "payment form" replaces a chosen "payment" when it holds at least half of its uses.
    const shorter = chosen.findIndex((c) => contains(p.key, c.key));
    if (shorter === -1) chosen.push(p);
    else if (p.count * 2 >= chosen[shorter]!.count) chosen[shorter] = p;
  }
  return chosen.map((p) => mostFrequentForm(p.forms));
}

/** Words that name a span of time: part of a topic asked about ("hours a week"), though no topic alone. */
const timeUnit = /^(?:hours?|days?|weeks?|months?|years?|minutes?|shifts?)$/;
/** Words before a noun of the question ("a pupil", "your bedside manner", "which kitchens", "how many hours"). */
const nounMark = /^(?:a|an|the|your|their|his|her|my|our|this|that|which|what|many|much|any|some)$/;
/** An adjective a question asks about, as the topic a reader would name. */
const asTopic: Record<string, string> = {
  available: 'availability',
  flexible: 'flexibility',
  motivates: 'motivation',
};

/**
 * What one question is about: its best run of content words, a noun preferred ("Tell me about your nursing
 * experience?" → "nursing experience"); null when it names nothing ("Where have you worked before?").
 */
export function questionTopic(question: string): string | null {
  const asks = question.split(/(?<=[.!?…])\s+/).filter((x) => /[?…]$/.test(x.trim()));
  const tokens = (asks.at(-1) ?? question)
    .replace(/[?!.…]+$/, '')
    .split(/\s+/)
    .map((t) => t.replace(/^[^\p{L}\d]+|[^\p{L}\d]+$/gu, ''))
    .filter(Boolean);
  const content = (t: string) => {
    const w = t.toLowerCase();
    if (timeUnit.test(w)) return true;
    if (/ly$/.test(w) || /^(?:describe|explain|tell|walk|handle|share|give)$/.test(w)) return false;
    return w.includes('-') || isContentWord(w);
  };
  const runs: { words: string[]; score: number; at: number }[] = [];
  for (let i = 0; i < tokens.length; i++) {
    if (!content(tokens[i]!)) continue;
    const start = i;
    const run: string[] = [];
    // "hours a week": a unit of time joins the run across "a"/"per".
    while (
      i < tokens.length &&
      (content(tokens[i]!) ||
        (/^(?:a|per)$/i.test(tokens[i]!) && timeUnit.test(tokens[i + 1]?.toLowerCase() ?? '')))
    )
      run.push(tokens[i++]!);
    const single = run.length === 1 ? run[0]!.toLowerCase() : null;
    if (single && (/ed$/.test(single) || (timeUnit.test(single) && !nounMark.test(tokens[start - 1] ?? ''))))
      continue;
    const noun = nounMark.test(tokens[start - 1]?.toLowerCase() ?? '') ? 1 : 0;
    // A name the question asks about ("How many years have you worked with PySpark?").
    const named = start > 0 && run.some((w) => /^[A-Z]/.test(w)) ? 1 : 0;
    runs.push({ words: run, score: run.length + noun + named, at: start });
  }
  const best = runs.sort((a, b) => b.score - a.score || b.at - a.at)[0];
  if (!best) return null;
  const phrase = best.words.join(' ');
  return (
    asTopic[phrase.toLowerCase()] ??
    (/^[A-Z][a-z]/.test(phrase) && best.at === 0 ? phrase.toLowerCase() : phrase)
  );
}

/** The topics of an interview the bot led: one per question asked, then recurring key phrases, up to `limit`. */
export function interviewTopics(
  questions: readonly string[],
  turns: readonly Turn[],
  limit = maxTopics,
): string[] {
  const topics: string[] = [];
  const add = (t: string | null) => {
    if (t && !topics.some((x) => x.toLowerCase() === t.toLowerCase()) && topics.length < limit)
      topics.push(t);
  };
  for (const q of questions) add(questionTopic(q));
  // A recurring phrase inside a question's topic ("experience" in "nursing experience") is no topic of its own.
  for (const t of extractTopics(turns, limit))
    if (!topics.some((x) => contains(` ${x.toLowerCase()} `, t.toLowerCase()))) add(t);
  return topics;
}

function contentRuns(sentence: string, exclude: ReadonlySet<string>): string[][] {
  const runs: string[][] = [];
  // Punctuation ends a phrase as a stop word does.
  for (const clause of sentence.split(/[,.;:!?()"“”—–]|\s-\s/)) {
    let run: string[] = [];
    for (const w of words(clause)) {
      if (isContentWord(w) && !exclude.has(w)) run.push(w);
      else if (run.length) {
        runs.push(run);
        run = [];
      }
    }
    if (run.length) runs.push(run);
  }
  return runs;
}

const contains = (longer: string, shorter: string): boolean =>
  longer !== shorter && ` ${longer} `.includes(` ${shorter} `);

/** The form said most often; the first said of equally frequent ones. */
const mostFrequentForm = (forms: Map<string, number>): string =>
  [...forms].reduce((best, form) => (form[1] > best[1] ? form : best), ['', -1])[0];

/** Explicit markers of a task or a next step. */
const strongAction =
  /\b(?:action items?|follow[- ]?up|next steps?|to-?do|deadline|by (?:monday|tuesday|wednesday|thursday|friday|tomorrow|tonight|next week|the end of (?:the )?(?:day|week|month)))\b/i;
/** A commitment ("we'll", "I need to", "let's"), not inside a relative clause ("the buttons that we'll use"). */
const commitment =
  /(?<!\b(?:that|which|who|what)\s)\b(?:(?:we|i)(?:'ll| will| shall| need to| should| are going to|'re going to|'re gonna| are gonna|'m going to|'m gonna| am going to)|let's)\s+(?:just\s+|also\s+|then\s+|all\s+)?(\w+)/i;
/** Words after "let's" or "we'll" that make no task: managing the talk ("let's see"), negation, hedging. */
const talkVerbs = wordSet(`see say go hope talk just be face start move get have find think know leave wait
  show back tell explain give try never not let probably`);
/** Reported, past, conditional or quoted speech is no commitment of this meeting ("I said we need to…"). */
const reported =
  /\b(?:said|told|thought|was like|were like|would have|used to|wanted to)\b|^(?:if|when)\b|["“”]/i;

/**
 * Action items ("Speaker: sentence"): statements of 5 to 35 words with a task marker or a commitment, at most 15%
 * fillers; at most `limit`, ranked by marker, then complete sentences, and shown in transcript order.
 */
export function extractActionItems(turns: readonly Turn[], limit = maxActionItems): string[] {
  const found: { text: string; strong: boolean; closed: boolean; order: number }[] = [];
  const seen = new Set<string>();
  let order = 0;
  for (const turn of turns) {
    if (turn.isBot) continue;
    for (const { text } of turn.sentences) {
      order++;
      const n = wordCount(text);
      if (n < 5 || n > 35 || questionKind(text) || reported.test(text)) continue;
      // "I I will use, eh, I want My idea is, eh…": too broken to be a task anyone can act on.
      if (fillerCount(text) / n > 0.15) continue;
      const strong = strongAction.test(text);
      // "I'll I'll show you": a stutter hides the verb.
      const verb = commitment.exec(text.replace(/\b([\w']+)(?:\s+\1\b)+/gi, '$1'))?.[1]?.toLowerCase();
      if (!strong && (!verb || talkVerbs.has(verb))) continue;
      const item = `${turn.speaker}: ${tidySentence(text)}`;
      const key = words(text).join(' ');
      if (seen.has(key)) continue;
      seen.add(key);
      found.push({ text: item, strong, closed: endsSentence(text), order });
    }
  }
  const ranked = [...found].sort(
    (a, b) => Number(b.strong) - Number(a.strong) || Number(b.closed) - Number(a.closed) || a.order - b.order,
  );
  return ranked
    .slice(0, limit)
    .sort((a, b) => a.order - b.order)
    .map((f) => f.text);
}
