// A process and its descendants on Linux (/proc): which they are, the CPU time each has used and their memory, for
// benchmarks that measure a bot-task process together with the Chromium it launched.
import { readdirSync, readFileSync } from 'node:fs';

/** Linux reports process CPU in clock ticks of 1/100 s (USER_HZ). */
const msPerTick = 10;

/** The fields of /proc/<pid>/stat after the parenthesised command name (state is field 3, so index 0). */
function statFields(pid: number | string): string[] | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return undefined;
  }
}

/** Every live descendant of `root` (children, their children, ...), not `root` itself. */
export function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = Number(statFields(entry)?.[1]);
    if (!Number.isFinite(parent)) continue;
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      out.push(child);
      walk(child);
    }
  };
  walk(root);
  return out;
}

/** A `field:  N kB` line of a /proc file, in kB (0 when the process or the field is gone). */
export function procKb(file: string, field: string): number {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(readFileSync(file, 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

export interface TreeSample {
  at: number;
  /** CPU time (user + system) used so far by each live process of the tree, in ms, by pid. */
  cpuMs: Map<number, number>;
  /** Sum of the processes' resident sets (pages shared between them counted in each). */
  rssKb: number;
  /** Sum of their proportional set sizes (each shared page divided among the processes mapping it). */
  pssKb: number;
}

/** One reading of `root` and its descendants. */
export function sampleTree(root: number): TreeSample {
  const pids = [root, ...descendants(root)];
  const cpuMs = new Map<number, number>();
  let rssKb = 0;
  let pssKb = 0;
  for (const pid of pids) {
    const f = statFields(pid);
    if (!f) continue;
    cpuMs.set(pid, (Number(f[11]) + Number(f[12])) * msPerTick);
    rssKb += procKb(`/proc/${pid}/status`, 'VmRSS');
    pssKb += procKb(`/proc/${pid}/smaps_rollup`, 'Pss');
  }
  return { at: Date.now(), cpuMs, rssKb, pssKb };
}

/**
 * CPU time each process of the tree used between the first and the last of `samples`, in ms, by pid: its last reading
 * less its first (a process that appeared meanwhile counts from 0; one that ended counts until its last reading).
 */
export function cpuMsByPid(samples: TreeSample[]): Map<number, number> {
  const first = new Map<number, number>();
  const used = new Map<number, number>();
  samples.forEach((s, i) => {
    for (const [pid, ms] of s.cpuMs) {
      if (!first.has(pid)) first.set(pid, i === 0 ? ms : 0);
      used.set(pid, ms - first.get(pid)!);
    }
  });
  return used;
}

/** CPU time the whole tree used between the first and the last of `samples`, in ms. */
export function treeCpuMs(samples: TreeSample[]): number {
  let total = 0;
  for (const ms of cpuMsByPid(samples).values()) total += ms;
  return total;
}

/**
 * What a process of a bot's tree is, from its command line: `node`, Chromium's `browser`, or its `--type` (renderer,
 * gpu-process, zygote) with a utility process's sub-type (e.g. `utility:audio.mojom.AudioService`).
 */
export function processRole(pid: number): string {
  let args: string[];
  try {
    // Chromium's child processes rewrite their title: one string, arguments separated by spaces.
    args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
  } catch {
    return 'ended';
  }
  const flag = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const type = flag('type');
  if (type === 'utility') return `utility:${flag('utility-sub-type') ?? '?'}`;
  if (type) return type;
  if (/crashpad/.test(args[0] ?? '')) return 'crashpad';
  return /node/.test(args[0] ?? '') ? 'node' : 'browser';
}
