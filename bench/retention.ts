// Retention at production size: 200,000 retained meetings (many accounts, retention from 0 days to a year, ends over a
// year, a burst of 10,000 in one hour) through the sweep's own code every minute within the sweeper's time, on a
// virtual clock over the in-memory index (bench/retention-sim.ts). Reports how late past its due time each meeting's
// content went (target: an hour at most), how often each was looked at, and the index's reads, writes and request
// units per day. `--quick`: 2,000 meetings over 20 days, in seconds.

import { retentionShardCount } from '../core/adapters/dynamodb/retention-index';
import { MemoryRetentionIndex } from '../test/support/memory-retention-index';
import { fullScenario, quickScenario, type RetentionSimResult, runRetentionSim } from './retention-sim';
import type { Table } from './run';
import { type BenchOptions, verdict } from './support';

/** The target: every meeting's content deleted within an hour of its due time. */
const maxLatenessMinutes = 60;

export async function run(options: BenchOptions): Promise<Record<string, unknown>> {
  const scenario = options.quick ? quickScenario : fullScenario;
  const result = await runRetentionSim(scenario, new MemoryRetentionIndex(retentionShardCount));
  const pass =
    result.lateness_minutes.max <= maxLatenessMinutes &&
    result.deleted_too_early === 0 &&
    result.missed === 0;
  return {
    ...result,
    shards: retentionShardCount,
    target_max_lateness_minutes: maxLatenessMinutes,
    verdict: verdict(pass, options),
    measured:
      'nothing timed on this machine: every figure is of the simulation (virtual clock, simulated latencies)',
  };
}

export function table(result: Record<string, unknown>): Table {
  const r = result as unknown as RetentionSimResult & { shards: number; verdict: string };
  return [
    ['figure', 'value'],
    ['meetings / accounts / shards', `${r.meetings} / ${r.accounts} / ${r.shards}`],
    ['simulated days / sweeps', `${r.simulated_days} / ${r.sweeps}`],
    ['deleted by the sweep / by customers first', `${r.deleted} / ${r.deleted_early_by_customer}`],
    [
      'lateness past due, minutes (p50 / p99 / max)',
      `${r.lateness_minutes.p50} / ${r.lateness_minutes.p99} / ${r.lateness_minutes.max}`,
    ],
    ['deleted too early / missed', `${r.deleted_too_early} / ${r.missed}`],
    [
      'looks per meeting (1 / 2 / more / max)',
      `${r.looks_per_meeting.one} / ${r.looks_per_meeting.two} / ${r.looks_per_meeting.more} / ${r.looks_per_meeting.max}`,
    ],
    ['sweep time, ms (p50 / max / budget)', `${r.sweep_ms.p50} / ${r.sweep_ms.max} / ${r.sweep_ms.budget}`],
    ['sweeps cut off by their deadline', String(r.sweeps_cut_off_by_deadline)],
    ['index entries read / written per day', `${r.per_day.entries_read} / ${r.per_day.entries_written}`],
    ['index Queries per day', String(r.per_day.queries)],
    ['index read / write units per day', `${r.per_day.read_units} / ${r.per_day.write_units}`],
    [
      'peak day: entries read / written, RRU / WRU',
      `${r.peak_day.entries_read} / ${r.peak_day.entries_written}, ${r.peak_day.read_units} / ${r.peak_day.write_units}`,
    ],
    ['session / account reads per day', `${r.per_day.session_reads} / ${r.per_day.account_reads}`],
    ['index cost per day (on-demand, USD)', String(r.usd_per_day_on_demand)],
    ['legacy entries left', String(r.legacy_entries_left)],
    ['verdict (max lateness ≤ 60 min, none early, none missed)', r.verdict],
  ];
}
