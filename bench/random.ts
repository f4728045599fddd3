// Seeded randomness for the simulated benchmarks: two runs replay the same draws.

/** A seeded source of uniform numbers in [0, 1) whose first draws differ however close the seeds (mulberry32). */
export function rng(seed: number): () => number {
  // Spread consecutive seeds apart (Knuth's multiplicative hash): their first draws would be alike otherwise.
  return mulberry32(Math.imul(seed, 2654435761));
}

/** mulberry32 from `state` as it is: the same state always gives the same draws. */
export function mulberry32(state: number): () => number {
  let a = state >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A latency distribution: log-normal through a published median and 95th percentile. */
export interface Dist {
  median: number;
  p95: number;
}

/** One draw of a log-normal distribution with that median and 95th percentile. */
export function sample(random: () => number, d: Dist): number {
  // Box-Muller: a standard normal, then the log-normal with that median and 95th percentile.
  const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return d.median * Math.exp((Math.log(d.p95 / d.median) / 1.645) * z);
}
