// TaskRunner for the local stack: one bot-task child process per bot, with the same environment contract as ECS.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TaskRunner } from '../core/ports/task-runner';
import { buildBotTaskBundle } from '../scripts/bundles';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/**
 * Bots run from an esbuild bundle, as in the container: starting node on one file takes a fraction of the time
 * tsx needs to compile the sources, which matters when 20 bots start at once. One bundle per stack process.
 */
const bundleDir = join(repoRoot, 'node_modules', '.cache', 'meeting-bot', `bot-task-${process.pid}`);
let bundle: Promise<string> | undefined;

function botBundle(): Promise<string> {
  if (!bundle) {
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
  /** Called when a child exits, whatever the reason; the local stack fails sessions left running. */
  onExit?: (botId: string, code: number | null, signal: NodeJS.Signals | null) => void;
}

export class LocalTaskRunner implements TaskRunner {
  private readonly children = new Map<string, ChildProcess>();

  constructor(private readonly options: LocalRunnerOptions) {
    mkdirSync(options.logDir, { recursive: true });
  }

  /** Builds the bot bundle ahead of the first join (npm start does, so the first bot starts as fast as the rest). */
  prepare(): Promise<unknown> {
    return botBundle();
  }

  async start(botId: string): Promise<{ taskRef: string }> {
    const entry = await botBundle();
    const log = createWriteStream(join(this.options.logDir, `${botId}.log`), { flags: 'a' });
    const child = spawn(process.execPath, [entry], {
      cwd: repoRoot,
      env: { ...this.options.env, BOT_ID: botId },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    this.children.set(botId, child);
    child.once('exit', (code, signal) => {
      this.children.delete(botId);
      log.end();
      this.options.onExit?.(botId, code, signal);
    });
    return { taskRef: `local:${child.pid}` };
  }

  async stop(botId: string): Promise<void> {
    this.children.get(botId)?.kill('SIGTERM');
  }

  /** Sends a signal to a bot's process (tests use SIGKILL to simulate a crash). */
  signal(botId: string, signal: NodeJS.Signals): boolean {
    return this.children.get(botId)?.kill(signal) ?? false;
  }

  /** The OS process id of a bot's running child (benchmarks read its /proc figures); undefined once it exited. */
  pid(botId: string): number | undefined {
    return this.children.get(botId)?.pid;
  }

  get running(): number {
    return this.children.size;
  }

  /** Stops every child: SIGTERM (the bot's own exit pipeline), then SIGKILL after `graceMs`. */
  async closeAll(graceMs = 5000): Promise<void> {
    const waits = [...this.children.values()].map(
      (child) =>
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
