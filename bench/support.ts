// What the benchmarks share: a local stack on a fresh data directory with a funded account, and small statistics.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent as HttpAgent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { type LocalStack, startLocalStack } from '../local/stack';

/** How `npm run bench` runs a benchmark: `quick` (`-- --quick`) at a tiny size, only to prove it still works. */
export interface BenchOptions {
  quick: boolean;
}

/** A target's verdict for the tables: a quick run is too small to judge, so it says so instead of pass/FAIL. */
export function verdict(pass: boolean, options: BenchOptions): string {
  if (options.quick) return 'not judged (quick)';
  return pass ? 'pass' : 'FAIL';
}

export interface BenchAccount {
  accountId: string;
  apiKey: string;
}

/** Runs `fn` against a fresh local stack (own data directory, high rate limit) and always tears it down. */
export async function withBenchStack<T>(
  name: string,
  credits: number,
  fn: (stack: LocalStack, account: BenchAccount) => Promise<T>,
  env: Record<string, string> = {},
): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), `bench-${name}-`));
  let stack: LocalStack | undefined;
  try {
    stack = await startLocalStack({
      port: 0,
      dataDir,
      // Bots start cold, as each benchmark's committed figures were measured, unless it asks for the warm pool.
      env: { LOG_LEVEL: 'warn', RATE_LIMIT_PER_MINUTE: '100000', BOT_POOL_SIZE: '0', ...env },
    });
    const { account, apiKey } = await stack.deps.accounts.create('bench');
    await stack.deps.ledger.grant(account.accountId, credits, 'bench');
    return await fn(stack, { accountId: account.accountId, apiKey });
  } finally {
    await stack?.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * The bot-task process of a running bot: the local runner's child for that bot id. Sessions keep no task id (ECS
 * finds a bot's task by startedBy = bot id), so the runner is the one place that knows it.
 */
export function botPid(stack: LocalStack, botId: string): number {
  const pid = stack.runner.pid(botId);
  if (pid === undefined) throw new Error(`no running bot-task process for bot ${botId}`);
  return pid;
}

/** The middle value, or the mean of the two middle values of an even count. */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

/** Polls until `probe` gives a truthy value, which it returns. */
export async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  ms = 30_000,
): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Linux reports thread CPU in clock ticks of 1/100 s (USER_HZ). */
const msPerTick = 10;

/** utime + stime of a /proc stat line, in ms. Fields after the parenthesised command name: utime is 14, stime 15. */
function statCpuMs(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * msPerTick;
}

/** CPU time in ms used so far by a whole process (every thread; Linux /proc). */
export function processCpuMs(pid: number): number {
  return statCpuMs(readFileSync(`/proc/${pid}/stat`, 'utf8'));
}

/** Lambda's shape: the AWS host name signed and resolved by the SDK's endpoint rules; only the socket goes local. */
export function redirectedHandler(port: number) {
  const inner = new NodeHttpHandler({ httpAgent: new HttpAgent({ keepAlive: true, maxSockets: 64 }) });
  return {
    handle(
      request: Parameters<NodeHttpHandler['handle']>[0],
      options?: Parameters<NodeHttpHandler['handle']>[1],
    ) {
      Object.assign(request, { protocol: 'http:', hostname: '127.0.0.1', port });
      return inner.handle(request, options);
    },
    updateHttpClientConfig() {},
    httpHandlerConfigs: () => ({}),
    destroy: () => inner.destroy(),
  };
}

/** This process's CPU per call (µs) over `n` calls made one at a time, as a Lambda instance serves one at a time. */
export async function serialCpuUs(call: () => Promise<unknown>, n: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) await call();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

/** CPU time in ms of one thread of process `pid` (Linux /proc; 0 when it is gone or unknown). */
export function threadOfProcessCpuMs(pid: number, tid: number | undefined): number {
  if (tid === undefined) return 0;
  try {
    return statCpuMs(readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8'));
  } catch {
    return 0;
  }
}

/**
 * CPU time in ms used so far by each thread of this process, keyed by OS thread id (Linux /proc; an empty map
 * elsewhere). Threads that ended in between simply drop out of a difference of two snapshots.
 */
export function threadCpuMs(): Map<number, number> {
  const cpu = new Map<number, number>();
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return cpu;
  }
  for (const tid of tids) {
    try {
      cpu.set(Number(tid), statCpuMs(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')));
    } catch {
      // The thread ended while we read.
    }
  }
  return cpu;
}
