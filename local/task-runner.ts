// TaskRunner for the local stack: one bot-task child process per bot, with the same environment contract as ECS.
import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TaskRunner } from '../core/ports/task-runner';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
const botEntry = join(repoRoot, 'bot-task', 'main.ts');

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

  async start(botId: string): Promise<{ taskRef: string }> {
    const log = createWriteStream(join(this.options.logDir, `${botId}.log`), { flags: 'a' });
    const child = spawn(process.execPath, ['--import', 'tsx', botEntry], {
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
