// Local insights engine: median time to analyse a ~3-hour (27,000-word) transcript built from the real
// transcripts in ../shared (or, without that folder, a synthetic meeting), plus each real transcript alone.
import type { Utterance } from '../core/bots/transcript';
import { analyseLocally } from '../core/engines/rules/insights/local-engine';
import { countWords, syntheticMeeting } from '../test/fixtures/insights/synthetic';
import { loadRealTranscripts, toUtterances } from '../test/fixtures/insights/transcripts';
import type { Table } from './run';
import { type BenchOptions, median } from './support';

const targetWords = 27_000;

function time(utterances: Utterance[], runs: number) {
  const ms: number[] = [];
  let pairs = 0;
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const result = analyseLocally({ utterances, processInsights: true });
    ms.push(performance.now() - started);
    pairs = result.qaPairs.length;
  }
  return { words: countWords(utterances), median_ms: Math.round(median(ms) * 10) / 10, pairs };
}

export async function run(options: BenchOptions): Promise<Record<string, unknown>> {
  const runs = options.quick ? 1 : 7; // odd: the median is one of the runs
  const real = loadRealTranscripts();
  let source: string;
  let long: Utterance[];
  if (real.length) {
    source = 'real transcripts (../shared/data/transcripts), concatenated until 27,000 words';
    const turns = real.flatMap((t) => t.turns);
    const all = [...turns];
    while (countWords(toUtterances(all)) < targetWords) all.push(...turns);
    long = toUtterances(all);
    // Cut back to the first utterance past the target, so the figure is for ~27,000 words.
    let words = 0;
    const end = long.findIndex((u) => {
      words += countWords([u]);
      return words >= targetWords;
    });
    long = long.slice(0, end + 1);
  } else {
    source = 'synthetic meeting (no ../shared folder)';
    long = syntheticMeeting(targetWords);
  }
  time(long, 1); // warm-up: JIT and regex compilation
  const three_hours = time(long, runs);
  const transcripts = real.map((t) => ({ name: t.name, ...time(toUtterances(t.turns), runs) }));
  return {
    source,
    runs_per_figure: runs,
    words: three_hours.words,
    ms: three_hours.median_ms,
    pairs: three_hours.pairs,
    transcripts,
  };
}

export function table(result: Record<string, unknown>): Table {
  const rows: Table = [['transcript', 'words', 'median ms', 'Q&A pairs']];
  rows.push(['~3 h (27k words)', String(result.words), String(result.ms), String(result.pairs)]);
  for (const t of result.transcripts as { name: string; words: number; median_ms: number; pairs: number }[]) {
    rows.push([t.name, String(t.words), String(t.median_ms), String(t.pairs)]);
  }
  rows.push([`source: ${String(result.source)}; median of ${String(result.runs_per_figure)} runs`]);
  return rows;
}
