// The simulations' virtual clock: timers fire in order at their virtual time without waiting for it, the clock
// stands still while code runs (and, in a storm, waits for the real calls it tracks), and everything is put back.
import { afterEach, describe, expect, it } from 'vitest';
import { realNow, VirtualTime } from '../../bench/virtual-clock';

describe('virtual clock in place of the globals', () => {
  let uninstall: (() => void) | undefined;
  const install = () => {
    const clock = new VirtualTime(realNow());
    uninstall = clock.install();
    return clock;
  };
  afterEach(() => {
    uninstall?.();
    uninstall = undefined;
  });

  it('runs a 10-second wait in no real time, timers in the order of their virtual time', async () => {
    const realSetTimeout = globalThis.setTimeout;
    const realDateNow = Date.now;
    const clock = install();
    const started = realNow();
    const t0 = performance.now();
    const d0 = Date.now();
    const fired: [string, number][] = [];
    const at = (name: string, ms: number) =>
      new Promise<void>((resolve) =>
        setTimeout(() => {
          fired.push([name, performance.now() - t0]);
          resolve();
        }, ms),
      );
    const cancelled = setTimeout(() => fired.push(['cancelled', 0]), 50);
    clearTimeout(cancelled);
    await clock.run(Promise.all([at('late', 10_000), at('early', 350), at('same time, set later', 350)]));
    expect(fired.map(([name]) => name)).toEqual(['early', 'same time, set later', 'late']);
    for (const [[, t], want] of fired.map((f, i) => [f, [350, 350, 10_000][i]!] as const))
      expect(t).toBeCloseTo(want, 6);
    expect(Date.now() - d0).toBeCloseTo(10_000, 6);
    // Far less than the 10 s of virtual time, even on a loaded machine.
    expect(realNow() - started).toBeLessThan(5_000);

    uninstall?.();
    uninstall = undefined;
    expect(globalThis.setTimeout).toBe(realSetTimeout);
    expect(Date.now).toBe(realDateNow);
  });

  it('stands still while code runs: awaited work between timers takes no virtual time', async () => {
    const clock = install();
    const t0 = performance.now();
    const work = async () => {
      for (let i = 0; i < 1_000; i++) await Promise.resolve();
      let x = 0;
      for (let i = 0; i < 1e6; i++) x += i;
      return [x > 0, performance.now() - t0] as const;
    };
    expect(await clock.run(work())).toEqual([true, 0]);
  });

  it('fails a run that waits on nothing, instead of hanging', async () => {
    const clock = install();
    await expect(clock.run(new Promise(() => {}))).rejects.toThrow('waits on nothing');
  });

  it('passes on the failure of the work it runs', async () => {
    const clock = install();
    const failing = new Promise((_, reject) => setTimeout(() => reject(new Error('stand-in failed')), 20));
    await expect(clock.run(failing)).rejects.toThrow('stand-in failed');
  });

  it('drops the timers a finished run left behind', async () => {
    const clock = install();
    let leftOver = false;
    setTimeout(() => {
      leftOver = true;
    }, 1_000);
    await clock.run(new Promise<void>((resolve) => setTimeout(resolve, 10)));
    clock.discardTimers();
    await expect(clock.run(new Promise(() => {}))).rejects.toThrow('waits on nothing');
    expect(leftOver).toBe(false);
  });
});

describe('virtual clock handed to the code (the storms)', () => {
  it('fires the timers due at one instant together, then waits for the real work they started', async () => {
    const epoch = Date.parse('2026-01-05T10:00:00Z');
    const time = new VirtualTime(epoch);
    const log: string[] = [];
    const store = time.tracked({
      // A real asynchronous call (dynalite's, in the storm): 20 ms of wall-clock time the clock must wait for.
      write: (what: string) =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            log.push(`${what} written at +${time.now() - epoch}`);
            resolve();
          }, 20),
        ),
    });
    time.at(epoch + 1_000, () => log.push('a at +1000'));
    time.at(epoch + 1_000, () => void store.write('b'));
    void time.sleep(500).then(() => log.push('slept 500'));
    time.at(epoch + 1_500, () => log.push('c at +1500'));
    await time.runUntil(() => log.length === 4, 60_000);
    expect(log).toEqual(['slept 500', 'a at +1000', 'b written at +1000', 'c at +1500']);
    expect(time.date().toISOString()).toBe('2026-01-05T10:00:01.500Z');
  });

  it('stops at its limit or when nothing is left, without firing past the limit', async () => {
    const time = new VirtualTime(0);
    let fired = 0;
    time.at(100, () => fired++);
    time.at(5_000, () => fired++);
    await time.runUntil(() => false, 1_000);
    expect([fired, time.now()]).toEqual([1, 100]);
    await time.runUntil(() => false, 10_000);
    expect([fired, time.now()]).toEqual([2, 5_000]);
  });
});
