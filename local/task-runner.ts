// TaskRunner for the local stack: one bot-task child process per bot, with the same environment contract as ECS.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TaskRunner, TaskStartOptions } from '../core/ports/task-runner';
import { buildBotTaskBundle } from '../scripts/bundles';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/**
 * Bots run from an esbuild bundle, as in the container: starting node on one file takes a fraction of the time
 * tsx needs to compile the sources, which matters when 20 bots start at once. One bundle per stack process.
 */
const cacheDir = join(repoRoot, 'node_modules', '.cache', 'meeting-bot');
const bundleDir = join(cacheDir, `bot-task-${process.pid}`);
let bundle: Promise<string> | undefined;

/**
 * Removes the bundles of processes that are gone: one killed without running its exit handlers (a test worker
 * stopped by its pool, a SIGKILL) leaves its directory behind.
 */
function pruneBundlesOfDeadProcesses(): void {
  for (const name of existsSync(cacheDir) ? readdirSync(cacheDir) : []) {
    const pid = Number(/^bot-task-(\d+)$/.exec(name)?.[1]);
    if (!pid || pid === process.pid || isAlive(pid)) continue;
    rmSync(join(cacheDir, name), { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: alive, but another user's.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function botBundle(): Promise<string> {
  if (!bundle) {
    pruneBundlesOfDeadProcesses();
    // Other stacks of this process may still spawn from it, so it goes when the process does.
    process.once('exit', () => rmSync(bundleDir, { recursive: true, force: true }));
    bundle = buildBotTaskBundle(bundleDir).then(() => join(bundleDir, 'main.mjs'));
  }
  return bundle;
}

export interface LocalRunnerOptions {
  /** Environment every bot-task gets (table, endpoints, timings); BOT_ID is added per bot. */
  env: Record<string, string>;
  /** Where each bot's log goes: <logDir>/<bot_id>.log. */
  logDir: string;
  /**
   * Called when a child exits, whatever the reason, with which task of the session it was (its BOT_ATTEMPT); the
   * local stack replaces or fails sessions left running, as the ECS task-stopped event does.
   */
  onExit?: (botId: string, code: number | null, signal: NodeJS.Signals | null, attempt: number) => void;
}

interface BotChild {
  botId: string;
  attempt: number;
  process: ChildProcess;
}

export class LocalTaskRunner implements TaskRunner {
  /** By bot id and attempt: a bot handing over to its replacement runs beside it for a while. */
  private readonly children = new Map<string, BotChild>();

  constructor(private readonly options: LocalRunnerOptions) {
    mkdirSync(options.logDir, { recursive: true });
  }

  /** Builds the bot bundle ahead of the first join (npm start does, so the first bot starts as fast as the rest). */
  prepare(): Promise<unknown> {
    return botBundle();
  }

  async start(botId: string, options: TaskStartOptions = {}): Promise<{ taskRef: string }> {
    const entry = await botBundle();
    const attempt = options.attempt ?? 0;
    const log = createWriteStream(join(this.options.logDir, `${botId}.log`), { flags: 'a' });
    const child = spawn(process.execPath, [entry], {
      cwd: repoRoot,
      env: { ...this.options.env, BOT_ID: botId, ...(attempt > 0 && { BOT_ATTEMPT: String(attempt) }) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    const key = `${botId}#${attempt}`;
    this.children.set(key, { botId, attempt, process: child });
    child.once('exit', (code, signal) => {
      this.children.delete(key);
      log.end();
      this.options.onExit?.(botId, code, signal, attempt);
    });
    return { taskRef: `local:${child.pid}` };
  }

  async stop(botId: string): Promise<void> {
    for (const child of this.childrenOf(botId)) child.process.kill('SIGTERM');
  }

  /** Sends a signal to the bot's newest process (tests use SIGKILL to simulate a crash, SIGTERM a platform stop). */
  signal(botId: string, signal: NodeJS.Signals): boolean {
    return this.childrenOf(botId).at(-1)?.process.kill(signal) ?? false;
  }

  /** The OS process id of a bot's newest running child (benchmarks read its /proc figures); undefined once gone. */
  pid(botId: string): number | undefined {
    return this.childrenOf(botId).at(-1)?.process.pid;
  }

  /** Which task of the bot runs now (the newest attempt), or undefined when none does. */
  attempt(botId: string): number | undefined {
    return this.childrenOf(botId).at(-1)?.attempt;
  }

  private childrenOf(botId: string): BotChild[] {
    return [...this.children.values()].filter((c) => c.botId === botId).sort((a, b) => a.attempt - b.attempt);
  }

  get running(): number {
    return this.children.size;
  }

  /** Stops every child: SIGTERM (the bot's own exit pipeline), then SIGKILL after `graceMs`. */
  async closeAll(graceMs = 5000): Promise<void> {
    const waits = [...this.children.values()].map(
      ({ process: child }) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          child.kill('SIGTERM');
        }),
    );
    await Promise.all(waits);
  }
}
