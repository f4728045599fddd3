// Summary quality of the local engine on the QMSum meetings in ../shared/data/qmsum (README there): ROUGE-1/2/L F1
// of our summary and of two extractive baselines (LEAD and TextRank, each cut to the gold summary's length)
// against the human-written summary of the whole meeting, plus how long our summary takes on a 4-hour meeting.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { l as rougeL, n as rougeN } from 'js-rouge';
import { parseSummaryFormat, summarise } from '../core/engines/rules/insights/summary';
import { buildTurns, contentStems, type Turn } from '../core/engines/rules/insights/text';
import { type TranscriptTurn, toUtterances } from '../test/fixtures/insights/transcripts';
import type { Table } from './run';
import type { BenchOptions } from './support';

/** The shared QMSum meetings; a user's clone has no ../shared, so the benchmark then reports that it skipped. */
export const qmsumDir = fileURLToPath(new URL('../../shared/data/qmsum/', import.meta.url));

/** The targets: ours against the baselines computed in the same run. */
export const targets = { rougeLOverTextRank: 1.25, rouge2OverLead: 1.25 };

export interface Meeting {
  name: string;
  turns: TranscriptTurn[];
  /** QMSum's answer to its general query "Summarize the whole meeting." (not a topic- or person-specific one). */
  gold: string;
}

export function loadMeetings(dir = qmsumDir): Meeting[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => {
      const data = JSON.parse(readFileSync(`${dir}${file}`, 'utf8')) as {
        turns: TranscriptTurn[];
        gold_summary: string;
      };
      return { name: file.replace(/\.json$/, ''), turns: data.turns, gold: data.gold_summary };
    });
}

export interface Rouge {
  r1: number;
  r2: number;
  rl: number;
}

/** Plain lower-cased word tokens: js-rouge's default tokenizer counts punctuation as tokens (QMSum README). */
export const rougeTokens = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * ROUGE-1, ROUGE-2 and summary-level ROUGE-L F1 (as ROUGE-1.5.5) of a candidate against a reference, with the
 * settings of the QMSum README. An empty candidate scores 0 (js-rouge throws on one).
 */
export function rouge(candidate: string, reference: string): Rouge {
  if (rougeTokens(candidate).length === 0) return { r1: 0, r2: 0, rl: 0 };
  const opts = { caseSensitive: false, tokenizer: rougeTokens };
  return {
    r1: rougeN(candidate, reference, { ...opts, n: 1 }),
    r2: rougeN(candidate, reference, { ...opts, n: 2 }),
    rl: rougeL(candidate, reference, opts),
  };
}

/** Sentences of a meeting in order, as the baselines see them. */
export function meetingSentences(turns: readonly Turn[]): string[] {
  return turns.flatMap((t) => t.sentences.map((s) => s.text));
}

/** The first `maxWords` words of the given sentences, whole sentences except the last one, which is cut. */
function upToWords(sentences: readonly string[], maxWords: number): string {
  const out: string[] = [];
  let used = 0;
  for (const s of sentences) {
    const tokens = s.split(/\s+/).filter(Boolean);
    const counted = tokens.filter((t) => rougeTokens(t).length > 0).length;
    if (used + counted <= maxWords) {
      out.push(s);
      used += counted;
      if (used === maxWords) break;
      continue;
    }
    let kept = 0;
    const cut: string[] = [];
    for (const t of tokens) {
      if (used + kept >= maxWords) break;
      cut.push(t);
      if (rougeTokens(t).length > 0) kept++;
    }
    if (cut.length) out.push(cut.join(' '));
    break;
  }
  return out.join(' ');
}

/** LEAD: the meeting's first sentences up to `maxWords` words. */
export function leadBaseline(sentences: readonly string[], maxWords: number): string {
  return upToWords(sentences, maxWords);
}

/**
 * TextRank (Mihalcea & Tarau 2004) over sentences: similarity = shared content words / (log |Si| + log |Sj|),
 * PageRank with damping 0.85 until it settles; the highest-ranked sentences up to `maxWords`, in meeting order.
 */
export function textRankBaseline(sentences: readonly string[], maxWords: number): string {
  const terms = sentences.map((s) => new Set(contentStems(s)));
  const n = sentences.length;
  const edges: { to: number; w: number }[][] = Array.from({ length: n }, () => []);
  const strength = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const a = terms[i]!;
    if (a.size === 0) continue;
    for (let j = i + 1; j < n; j++) {
      const b = terms[j]!;
      const norm = Math.log(a.size) + Math.log(b.size);
      if (b.size === 0 || norm <= 0) continue;
      let shared = 0;
      for (const t of a) if (b.has(t)) shared++;
      if (shared === 0) continue;
      const w = shared / norm;
      edges[i]!.push({ to: j, w });
      edges[j]!.push({ to: i, w });
      strength[i]! += w;
      strength[j]! += w;
    }
  }
  let rank = new Float64Array(n).fill(1);
  for (let iteration = 0; iteration < 100; iteration++) {
    const next = new Float64Array(n).fill(0.15);
    for (let j = 0; j < n; j++) {
      if (strength[j] === 0) continue;
      const share = (0.85 * rank[j]!) / strength[j]!;
      for (const e of edges[j]!) next[e.to]! += e.w * share;
    }
    let change = 0;
    for (let i = 0; i < n; i++) change += Math.abs(next[i]! - rank[i]!);
    rank = next;
    if (change < 1e-6 * n) break;
  }
  const byRank = [...sentences.keys()].sort((a, b) => rank[b]! - rank[a]! || a - b);
  // The best-ranked sentences until the budget is spent, the last one cut to fit; shown in meeting order.
  const chosen: { at: number; text: string }[] = [];
  let used = 0;
  for (const i of byRank) {
    if (used >= maxWords) break;
    const text = upToWords([sentences[i]!], maxWords - used);
    chosen.push({ at: i, text });
    used += rougeTokens(text).length;
  }
  return chosen
    .sort((a, b) => a.at - b.at)
    .map((c) => c.text)
    .join(' ');
}

/** Our summary of a meeting: what the local engine puts in `insights.summary` with no format prompt. */
export function ourSummary(turns: readonly Turn[]): string {
  return summarise(turns, parseSummaryFormat(undefined));
}

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;
const percent = (r: Rouge): Rouge => ({
  r1: round(r.r1 * 100),
  r2: round(r.r2 * 100),
  rl: round(r.rl * 100),
});

type System = 'ours' | 'lead' | 'textrank';
const systems: System[] = ['ours', 'lead', 'textrank'];

interface MeetingResult {
  name: string;
  gold_words: number;
  words: Record<System, number>;
  rouge: Record<System, Rouge>;
  /** Ours, to read beside its figures. */
  summary: string;
}

/** Quick mode: one meeting of each kind (AMI, ICSI, committee), the first of each in name order. */
function quickPick(meetings: Meeting[]): Meeting[] {
  const kinds = [/^(?:ES|IS|TS)\d/, /^B(?:ed|mr|ro)\d/, /^(?:covid|education)_/];
  return kinds.flatMap((k) => meetings.filter((m) => k.test(m.name)).slice(0, 1));
}

/** A meeting of about `words` words: the QMSum meetings one after another, as one long transcript. */
function longMeeting(meetings: Meeting[], words: number): Turn[] {
  const all: TranscriptTurn[] = [];
  let count = 0;
  for (let i = 0; count < words; i = (i + 1) % meetings.length) {
    for (const t of meetings[i]!.turns) {
      all.push(t);
      count += t.text.split(/\s+/).length;
    }
  }
  return buildTurns(toUtterances(all));
}

export async function run(options: BenchOptions): Promise<Record<string, unknown>> {
  const all = loadMeetings();
  if (all.length === 0) {
    return { skipped: `no QMSum meetings in ${qmsumDir}`, meetings: 0 };
  }
  const meetings = options.quick ? quickPick(all) : all;
  const results: MeetingResult[] = meetings.map((m) => {
    const turns = buildTurns(toUtterances(m.turns));
    const goldWords = rougeTokens(m.gold).length;
    const sentences = meetingSentences(turns);
    const texts: Record<System, string> = {
      ours: ourSummary(turns),
      lead: leadBaseline(sentences, goldWords),
      textrank: textRankBaseline(sentences, goldWords),
    };
    const words = {} as Record<System, number>;
    const scores = {} as Record<System, Rouge>;
    for (const s of systems) {
      words[s] = rougeTokens(texts[s]).length;
      scores[s] = percent(rouge(texts[s], m.gold));
    }
    return { name: m.name, gold_words: goldWords, words, rouge: scores, summary: texts.ours };
  });

  const average = {} as Record<System, Rouge & { words: number }>;
  for (const s of systems) {
    average[s] = {
      r1: round(mean(results.map((r) => r.rouge[s].r1))),
      r2: round(mean(results.map((r) => r.rouge[s].r2))),
      rl: round(mean(results.map((r) => r.rouge[s].rl))),
      words: Math.round(mean(results.map((r) => r.words[s]))),
    };
  }
  const rlRatio = round(average.ours.rl / average.textrank.rl);
  const r2Ratio = round(average.ours.r2 / average.lead.r2);

  // Speed: a 4-hour meeting (about 36,000 words at 150 a minute), median of a few runs after a warm-up.
  const long = longMeeting(all, options.quick ? 4_000 : 36_000);
  ourSummary(long);
  const ms: number[] = [];
  for (let i = 0; i < (options.quick ? 1 : 5); i++) {
    const started = performance.now();
    ourSummary(long);
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);

  return {
    meetings: results.length,
    mean_gold_words: Math.round(mean(results.map((r) => r.gold_words))),
    average,
    targets: {
      rouge_l_over_textrank: {
        ratio: rlRatio,
        target: targets.rougeLOverTextRank,
        verdict: await verdictOf(rlRatio >= targets.rougeLOverTextRank, options),
      },
      rouge_2_over_lead: {
        ratio: r2Ratio,
        target: targets.rouge2OverLead,
        verdict: await verdictOf(r2Ratio >= targets.rouge2OverLead, options),
      },
      met: rlRatio >= targets.rougeLOverTextRank && r2Ratio >= targets.rouge2OverLead,
    },
    long_meeting: {
      words: long.reduce((n, t) => n + t.sentences.reduce((k, s) => k + s.text.split(/\s+/).length, 0), 0),
      median_ms: round(ms[Math.floor(ms.length / 2)]!, 1),
    },
    per_meeting: results,
  };
}

interface Target {
  ratio: number;
  target: number;
  verdict: string;
}

/** The verdict of a target, from bench/support loaded only when the benchmark runs (tests import this module). */
async function verdictOf(pass: boolean, options: BenchOptions): Promise<string> {
  const { verdict } = await import('./support');
  return verdict(pass, options);
}

export function table(result: Record<string, unknown>): Table {
  if (result.skipped) return [['summaries'], [`skipped: ${String(result.skipped)}`]];
  const average = result.average as Record<System, Rouge & { words: number }>;
  const t = result.targets as Record<'rouge_l_over_textrank' | 'rouge_2_over_lead', Target>;
  const long = result.long_meeting as { words: number; median_ms: number };
  const label: Record<System, string> = {
    ours: 'ours (structured, local engine)',
    lead: 'LEAD (first sentences, gold length)',
    textrank: 'TextRank (gold length)',
  };
  const rows: Table = [['summary', 'ROUGE-1 F1', 'ROUGE-2 F1', 'ROUGE-L F1', 'mean words']];
  for (const s of systems) {
    const a = average[s];
    rows.push([label[s], a.r1.toFixed(2), a.r2.toFixed(2), a.rl.toFixed(2), String(a.words)]);
  }
  rows.push([
    `target ROUGE-L ≥ ${t.rouge_l_over_textrank.target} × TextRank: ${t.rouge_l_over_textrank.ratio} × — ${t.rouge_l_over_textrank.verdict}`,
  ]);
  rows.push([
    `target ROUGE-2 ≥ ${t.rouge_2_over_lead.target} × LEAD: ${t.rouge_2_over_lead.ratio} × — ${t.rouge_2_over_lead.verdict}`,
  ]);
  rows.push([
    `${String(result.meetings)} QMSum meetings, F1 × 100 against the general gold summary (mean ${String(result.mean_gold_words)} words); our summary of a ${long.words}-word meeting: ${long.median_ms} ms`,
  ]);
  return rows;
}
