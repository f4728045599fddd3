// The one virtual clock of the simulations: a waiting stand-in (a Fargate start, Polly's first byte) costs no
// wall-clock time and a loaded machine cannot stretch it (a timer that fires 40 ms late on a busy machine would
// otherwise count as 40 ms of service time). Time stands still while code runs and jumps to the next timer once nothing
// is left to run. Two ways in: the storms hand `now`/`sleep` to the code as its clock (core/retry.ts's RetryClock) and
// run their stores for real, tracked so time waits for them (runUntil); the voice benches put the clock in place of
// the globals (install: setTimeout, clearTimeout, Date.now, performance.now) and measure their own code's real time
// with realNow().
//
// Ours, not @sinonjs/fake-timers (tried 2026-11-28): it keeps whole milliseconds (a delay is parseInt'd, a 0 ms timer
// set while timers fire goes 1 ms later), so the figures moved (the quick storm with a pool of 20: join→room p50 52.5
// → 54.5 s, max 87.3 → 112.3 s; the quick turn-taking's punctuation p50 745 → 744 ms), and it scans every pending
// timer for the next one: with 1,000 pending, firing 5,000 took 5.1 s on it against 15 ms on this heap.

interface Timer {
  at: number;
  seq: number;
  fire: () => void;
}

const before = (a: Timer, b: Timer) => a.at < b.at || (a.at === b.at && a.seq < b.seq);

const real = {
  setTimeout: globalThis.setTimeout,
  clearTimeout: globalThis.clearTimeout,
  setImmediate: globalThis.setImmediate,
  dateNow: Date.now,
  perfNow: performance.now.bind(performance),
};

/** The real (wall-clock) time, for measuring the code under test while the clock is installed. */
export const realNow = real.perfNow;

/** What Node's Timeout offers callers (`unref`, `ref`, `hasRef`, `refresh`), over a virtual timer. */
class VirtualTimeout {
  constructor(readonly id: number) {}
  unref = () => this;
  ref = () => this;
  hasRef = () => true;
  refresh = () => this;
  [Symbol.toPrimitive] = () => this.id;
}

/** Timers fire in the order of their virtual time, those due at the same time in the order they were set. */
export class VirtualTime {
  private seq = 0;
  private readonly heap: Timer[] = [];
  private readonly cancelled = new Set<number>();
  private inFlight = 0;

  constructor(private t: number) {}

  now = (): number => this.t;
  date = (): Date => new Date(this.t);

  sleep = (ms: number): Promise<void> => new Promise((resolve) => this.at(this.t + Math.max(0, ms), resolve));

  /** Runs `fire` at virtual time `at` (never earlier than now); returns its id. */
  at(at: number, fire: () => void): number {
    const seq = this.seq++;
    this.push({ at: Math.max(at, this.t), seq, fire });
    return seq;
  }

  /** Drops the timers left behind by finished work (a stopped turn's stand-ins). */
  discardTimers(): void {
    this.heap.length = 0;
    this.cancelled.clear();
  }

  /** Counts a real asynchronous call (a store's), so the clock waits for it before moving. */
  track<T>(work: Promise<T>): Promise<T> {
    this.inFlight++;
    return work.finally(() => {
      this.inFlight--;
    });
  }

  /** Wraps every method of `target` with track(). */
  tracked<T extends object>(target: T): T {
    return new Proxy(target, {
      get: (obj, key) => {
        const value = Reflect.get(obj, key);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]) => {
          const out = value.apply(obj, args);
          return out instanceof Promise ? this.track(out) : out;
        };
      },
    });
  }

  /** Advances time, instant by instant, until `done()` or no timer is left or `limitMs` of virtual time passed. */
  async runUntil(done: () => boolean, limitMs: number): Promise<void> {
    const end = this.t + limitMs;
    for (;;) {
      await this.settle();
      const next = this.peek();
      if (done() || !next || next.at > end) return;
      this.t = next.at;
      while (this.peek()?.at === next.at) this.pop().fire();
    }
  }

  /** Fires timers one at a time until `work` settles; fails when it waits on nothing. */
  async run<T>(work: Promise<T>): Promise<T> {
    let settled = false;
    const done = work.finally(() => {
      settled = true;
    });
    done.catch(() => {});
    const drain = () => new Promise<void>((resolve) => real.setImmediate(resolve));
    for (;;) {
      // Everything runnable now runs first (promise continuations, stream reads): the clock stands still.
      await drain();
      await drain();
      if (settled) return done;
      const next = this.peek();
      if (!next) throw new Error('virtual clock: the work waits on nothing (no timer left)');
      this.pop();
      this.t = next.at;
      next.fire();
    }
  }

  /** Puts this clock in place of setTimeout, clearTimeout, Date.now and performance.now; returns the undo. */
  install(): () => void {
    const epoch = real.dateNow();
    const start = this.t;
    globalThis.setTimeout = ((fn: (...args: unknown[]) => void, ms?: number, ...args: unknown[]) =>
      new VirtualTimeout(
        this.at(this.t + Math.max(0, Number(ms) || 0), () => fn(...args)),
      )) as unknown as typeof setTimeout;
    globalThis.clearTimeout = ((t: unknown) => {
      if (t instanceof VirtualTimeout || typeof t === 'number') this.cancelled.add(Number(t));
    }) as typeof clearTimeout;
    Date.now = () => epoch + (this.t - start);
    performance.now = () => this.t;
    return () => {
      globalThis.setTimeout = real.setTimeout;
      globalThis.clearTimeout = real.clearTimeout;
      Date.now = real.dateNow;
      performance.now = real.perfNow;
    };
  }

  private async settle(): Promise<void> {
    for (let quiet = 0; quiet < 3; ) {
      await new Promise((r) => real.setImmediate(r));
      if (this.inFlight > 0) {
        quiet = 0;
        await new Promise((r) => real.setTimeout(r, 1));
      } else quiet++;
    }
  }

  /** The next timer not cancelled (cancelled ones on top are dropped). */
  private peek(): Timer | undefined {
    while (this.heap.length > 0 && this.cancelled.delete(this.heap[0]!.seq)) this.pop();
    return this.heap[0];
  }

  private push(item: Timer) {
    const h = this.heap;
    h.push(item);
    for (let i = h.length - 1; i > 0; ) {
      const p = (i - 1) >> 1;
      if (!before(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  private pop(): Timer {
    const h = this.heap;
    const top = h[0]!;
    const last = h.pop()!;
    if (h.length > 0) {
      h[0] = last;
      for (let i = 0; ; ) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && before(h[l]!, h[m]!)) m = l;
        if (r < h.length && before(h[r]!, h[m]!)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m]!, h[i]!];
        i = m;
      }
    }
    return top;
  }
}
