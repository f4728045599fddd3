// A virtual clock for latency benchmarks whose waits are stand-ins: setTimeout, clearTimeout, Date.now and
// performance.now run on a clock that stands still while code runs and jumps to the next timer once nothing is left
// to run. A stand-in's 350 ms then costs no wall-clock time and a loaded machine cannot stretch it (a timer that fires
// 40 ms late on a busy machine would otherwise count as 40 ms of service time). The time the code itself takes is
// not on this clock: the caller measures it with realNow() and adds it (bench/voice.ts).

interface VirtualTimer {
  id: number;
  at: number;
  seq: number;
  fn: (...args: unknown[]) => void;
  args: unknown[];
}

/** What Node's Timeout offers callers (`unref`, `ref`, `hasRef`, `refresh`), over a virtual timer. */
class VirtualTimeout {
  constructor(readonly id: number) {}
  unref() {
    return this;
  }
  ref() {
    return this;
  }
  hasRef() {
    return true;
  }
  refresh() {
    return this;
  }
  [Symbol.toPrimitive]() {
    return this.id;
  }
}

export interface VirtualClock {
  /** The real (wall-clock) time, for measuring the code under test. */
  realNow(): number;
  /** Runs the timers in virtual time until `work` settles; fails when it waits on nothing. */
  run<T>(work: Promise<T>): Promise<T>;
  /** Drops the timers left behind by finished work (a stopped turn's stand-ins). */
  discardTimers(): void;
  uninstall(): void;
}

export function installVirtualClock(): VirtualClock {
  const real = {
    setTimeout: globalThis.setTimeout,
    clearTimeout: globalThis.clearTimeout,
    setImmediate: globalThis.setImmediate,
    dateNow: Date.now,
    perfNow: performance.now.bind(performance),
  };
  const epoch = real.dateNow();
  let now = real.perfNow();
  let nextId = 1;
  let seq = 0;
  const timers = new Map<number, VirtualTimer>();

  const fakeSetTimeout = (fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) => {
    const id = nextId++;
    timers.set(id, { id, at: now + Math.max(0, Number(ms) || 0), seq: seq++, fn, args });
    return new VirtualTimeout(id);
  };
  const fakeClearTimeout = (t: unknown) => {
    if (t instanceof VirtualTimeout) timers.delete(t.id);
    else if (typeof t === 'number') timers.delete(t);
  };
  const start = now;
  globalThis.setTimeout = fakeSetTimeout as unknown as typeof setTimeout;
  globalThis.clearTimeout = fakeClearTimeout as typeof clearTimeout;
  Date.now = () => epoch + (now - start);
  performance.now = () => now;

  const drain = () => new Promise<void>((resolve) => real.setImmediate(resolve));
  const earliest = () => {
    let first: VirtualTimer | undefined;
    for (const t of timers.values())
      if (!first || t.at < first.at || (t.at === first.at && t.seq < first.seq)) first = t;
    return first;
  };

  return {
    realNow: real.perfNow,
    async run<T>(work: Promise<T>): Promise<T> {
      let settled = false;
      const done = work.finally(() => {
        settled = true;
      });
      done.catch(() => {});
      for (;;) {
        // Everything runnable now runs first (promise continuations, stream reads): the clock stands still.
        await drain();
        await drain();
        if (settled) return done;
        const next = earliest();
        if (!next) throw new Error('virtual clock: the work waits on nothing (no timer left)');
        timers.delete(next.id);
        now = Math.max(now, next.at);
        next.fn(...next.args);
      }
    },
    discardTimers() {
      timers.clear();
    },
    uninstall() {
      globalThis.setTimeout = real.setTimeout;
      globalThis.clearTimeout = real.clearTimeout;
      Date.now = real.dateNow;
      performance.now = real.perfNow;
    },
  };
}
