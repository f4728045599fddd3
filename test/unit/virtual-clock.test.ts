// The voice benchmark's virtual clock: timers fire in order at their virtual time without waiting for it, the clock
// stands still while code runs, and everything is put back afterwards.
import { afterEach, describe, expect, it } from 'vitest';
import { installVirtualClock, type VirtualClock } from '../../bench/virtual-clock';

describe('virtual clock', () => {
  let clock: VirtualClock | undefined;
  afterEach(() => {
    clock?.uninstall();
    clock = undefined;
  });

  it('runs a 10-second wait in no real time, timers in the order of their virtual time', async () => {
    const realSetTimeout = globalThis.setTimeout;
    const realDateNow = Date.now;
    clock = installVirtualClock();
    const started = clock.realNow();
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
    // The clock also moves with the real time code takes (the bench's own-code part): a few ms on a loaded machine.
    expect(fired.map(([name]) => name)).toEqual(['early', 'same time, set later', 'late']);
    for (const [[, t], want] of fired.map((f, i) => [f, [350, 350, 10_000][i]!] as const)) {
      expect(t).toBeGreaterThan(want - 0.001);
      expect(t).toBeLessThan(want + 50);
    }
    expect(Date.now() - d0).toBeGreaterThanOrEqual(10_000);
    expect(Date.now() - d0).toBeLessThan(10_050);
    // Far less than the 10 s of virtual time, even on a loaded machine.
    expect(clock.realNow() - started).toBeLessThan(5_000);

    clock.uninstall();
    clock = undefined;
    expect(globalThis.setTimeout).toBe(realSetTimeout);
    expect(Date.now).toBe(realDateNow);
  });

  it('stands still while code runs: awaited work between timers takes no virtual time', async () => {
    clock = installVirtualClock();
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
    clock = installVirtualClock();
    await expect(clock.run(new Promise(() => {}))).rejects.toThrow('waits on nothing');
  });

  it('passes on the failure of the work it runs', async () => {
    clock = installVirtualClock();
    const failing = new Promise((_, reject) => setTimeout(() => reject(new Error('stand-in failed')), 20));
    await expect(clock.run(failing)).rejects.toThrow('stand-in failed');
  });
});
