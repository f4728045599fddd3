// The benchmarks' view of a process tree: which processes it holds, their CPU between readings (processes that come
// and go included) and what kind of Chromium process each is.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { cpuMsByPid, descendants, processRole, sampleTree, treeCpuMs } from '../../bench/process-tree';
import { requires, skipReason } from '../support/requirements';

const reading = (at: number, cpu: [number, number][]) => ({
  at,
  cpuMs: new Map(cpu),
  rssKb: 0,
  pssKb: 0,
});

describe('CPU of a process tree between readings', () => {
  it('counts each process from its first reading, a late one from 0, an ended one until its last', () => {
    const samples = [
      reading(0, [
        [1, 1000],
        [2, 500],
      ]),
      reading(5000, [
        [1, 1400],
        [2, 700],
        [3, 100],
      ]),
      // Process 2 ended; 3 runs on.
      reading(10_000, [
        [1, 1900],
        [3, 350],
      ]),
    ];
    expect(Object.fromEntries(cpuMsByPid(samples))).toEqual({ 1: 900, 2: 200, 3: 350 });
    expect(treeCpuMs(samples)).toBe(1450);
    expect(treeCpuMs(samples.slice(0, 1))).toBe(0);
  });
});

describe.skipIf(
  skipReason(
    requires.other('/proc', existsSync('/proc/self/stat') ? undefined : 'no /proc here (Linux only)'),
  ),
)('reading /proc', () => {
  it('finds a child and reads the CPU and memory of the tree', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10_000)'], { stdio: 'ignore' });
    try {
      await new Promise((r) => child.once('spawn', r));
      expect(descendants(process.pid)).toContain(child.pid);
      const s = sampleTree(process.pid);
      expect(s.cpuMs.has(child.pid!)).toBe(true);
      expect(s.cpuMs.get(process.pid)).toBeGreaterThan(0);
      expect(s.rssKb).toBeGreaterThan(s.pssKb / 2);
      expect(s.pssKb).toBeGreaterThan(0);
      expect(processRole(child.pid!)).toBe('node');
    } finally {
      child.kill();
    }
  });

  it('names a Chromium process by its --type, a utility one by its service', () => {
    // A process whose title reads like Chromium's (one string, space-separated) stands in for one.
    const child = spawn(
      process.execPath,
      [
        '-e',
        "process.title = '/usr/lib/chromium/chromium --type=utility --utility-sub-type=audio.mojom.AudioService --lang=en-US'; setTimeout(() => {}, 10_000)",
      ],
      { stdio: 'ignore' },
    );
    return new Promise<void>((resolve, reject) => {
      const check = (tries: number) => {
        const role = processRole(child.pid!);
        if (role === 'utility:audio.mojom.AudioService' || tries === 0) {
          child.kill();
          try {
            expect(role).toBe('utility:audio.mojom.AudioService');
            resolve();
          } catch (err) {
            reject(err);
          }
        } else setTimeout(() => check(tries - 1), 50);
      };
      check(100);
    });
  });
});
