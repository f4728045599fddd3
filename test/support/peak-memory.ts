// Test helper: the most memory a piece of work holds at once (JavaScript heap plus buffers), sampled after a full
// garbage collection so only what is still referenced counts, not garbage the collector had not got to yet. Samples
// miss what is held for less than their spacing; the work measured here holds its buffers for its whole run.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const held = () => {
  const m = process.memoryUsage();
  return m.heapUsed + m.arrayBuffers;
};

/** Runs `work`, sampling what it holds every `everyMs`; `peakBytes` is the most above what was held before it. */
export async function peakMemoryGrowth<T>(
  work: () => Promise<T>,
  everyMs = 100,
): Promise<{ result: T; peakBytes: number; samples: number }> {
  gc();
  const before = held();
  let peakBytes = 0;
  let samples = 0;
  const sample = () => {
    gc();
    peakBytes = Math.max(peakBytes, held() - before);
    samples++;
  };
  // Buffers a collection found unreferenced are freed a moment later, on another thread: collect, give that a few
  // milliseconds, collect again, then read.
  const timer = setInterval(() => {
    gc();
    setTimeout(sample, 20);
  }, everyMs);
  try {
    const result = await work();
    sample();
    return { result, peakBytes, samples };
  } finally {
    clearInterval(timer);
  }
}
