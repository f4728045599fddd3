// TaskRunner for the local stack: one bot-task child process per bot (or one container of the bot image), with the
// same environment contract as ECS, and the warm pool: BOT_POOL_SIZE idle bot processes started without a
// BOT_ID, refilled as they join or die.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PoolScaler } from '../core/ports/pool-scaler';
import type { TaskRunner, TaskStartOptions } from '../core/ports/task-runner';
import { backoffMs } from '../core/retry';
import { buildBotTaskBundle } from '../scripts/bundles';
import { type BotContainer, botContainerArgs } from './container-engine';
import { isAlive } from './stack-file';

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
   * local stack replaces or fails sessions left running, as the ECS task-stopped event does. A pooled bot's exit is
   * reported only when it had claimed (or was claiming) a session, with its pool id as `claimant`.
   */
  onExit?: (
    botId: string,
    code: number | null,
    signal: NodeJS.Signals | null,
    attempt: number,
    claimant?: string,
  ) => void;
  /** Idle pooled bots to keep (BOT_POOL_SIZE); 0: none. */
  poolSize?: number;
  /** Told when an idle pooled bot could not be started (the pool tries again). */
  onPoolError?: (err: unknown) => void;
  /**
   * Run each bot as a container of `image` (BOT_RUNNER=container) instead of a node process. Pooled bots report to
   * the runner over an IPC channel a container does not have: with this set the pool stays empty.
   */
  container?: BotContainer;
}

interface BotChild {
  /** The session it serves; unset for a pooled bot still waiting for one. */
  botId?: string;
  attempt: number;
  process: ChildProcess;
  /** Sends the bot a signal (a container's goes through the engine: the client process cannot pass on SIGKILL). */
  kill(signal: NodeJS.Signals): boolean;
  /** Set on a pooled bot: its id in the pool, and the session it is trying to claim. */
  poolBotId?: string;
  claiming?: string;
  /** A pooled bot has warmed its provider (BOT_POOL_PROVIDER) and waits for a session. */
  ready?: boolean;
  /**
   * A pooled bot that claimed keeps its place in the pool until it is in the room (or exits, or refillBackstopMs
   * passes): then the pool refills behind it.
   */
  released?: boolean;
}

/** A pooled bot as the runner sees it (tests and the benchmark read the pool through this). */
export interface PooledBot {
  poolBotId: string;
  pid: number | undefined;
  /** The session it claimed; unset while idle. */
  botId?: string;
  /** Warmed and waiting (or past that): a join now finds it ready, its browser launched for the Daily provider. */
  ready: boolean;
}

/** What a pooled bot tells the runner over its IPC channel (bot-task/main.ts). */
type PoolReport = { ready: true } | { claiming: string | null } | { claimed: string } | { joined: string };

/**
 * A claimed pooled bot's place is refilled once it is in the room, not at the claim: on one machine a new bot's
 * Chromium launch would take the CPU its join needs (a burst of ten claims started ten launches beside ten joins and
 * doubled the burst's p95, bench/join-latency). A join that takes longer than this (a waiting room) frees it anyway.
 */
const refillBackstopMs = 10_000;
/** The most idle bots the scheduler adds beyond the pool's size on one machine (each is a Node process, and Chromium with Daily). */
const maxAddedIdle = 20;

export class LocalTaskRunner implements TaskRunner, PoolScaler {
  /** By bot id and attempt (pooled bots by pool id): a bot handing over to its replacement runs beside it a while. */
  private readonly children = new Map<string, BotChild>();
  /** Pooled bots being spawned: counted with the idle ones, so concurrent refills do not overshoot. */
  private spawning = 0;
  /** Pooled bots that died idle in a row: refills back off, so a bot that cannot start does not spin. */
  private idleDeaths = 0;
  private closing = false;

  constructor(private readonly options: LocalRunnerOptions) {
    mkdirSync(options.logDir, { recursive: true });
  }

  /** Where a bot's output goes (its bot id, or a pooled bot's pool id; a claimed pooled bot's is at both). */
  logFile(name: string): string {
    return join(this.options.logDir, `${name}.log`);
  }

  /** Builds the bot bundle ahead of the first join (npm start does, so the first bot starts as fast as the rest). */
  prepare(): Promise<unknown> {
    // Containers run the bundle inside the image.
    return this.options.container ? Promise.resolve() : botBundle();
  }

  async start(botId: string, options: TaskStartOptions = {}): Promise<{ taskRef: string }> {
    const attempt = options.attempt ?? 0;
    const child = await this.spawnBot(botId, {
      BOT_ID: botId,
      ...(attempt > 0 && { BOT_ATTEMPT: String(attempt) }),
    });
    const key = `${botId}#${attempt}`;
    this.children.set(key, { botId, attempt, process: child, kill: this.killer(child, botId, attempt) });
    child.once('exit', (code, signal) => {
      this.children.delete(key);
      this.options.onExit?.(botId, code, signal, attempt);
    });
    return { taskRef: `local:${child.pid}` };
  }

  /** A pooled bot logs under its pool id from its start: its session's log name points there once it claims. */
  private linkLog(poolBotId: string, botId: string): void {
    try {
      symlinkSync(`${poolBotId}.log`, this.logFile(botId));
    } catch {
      // Already there (a cold start of the same session wrote it): the pool's own log keeps this bot's lines.
    }
  }

  private async spawnBot(logName: string, env: Record<string, string>, ipc = false): Promise<ChildProcess> {
    const { container } = this.options;
    const entry = container ? '' : await botBundle();
    const log = createWriteStream(this.logFile(logName), { flags: 'a' });
    const child = container
      ? spawn(
          container.engine.command,
          botContainerArgs(container, containerName(logName, env), { ...this.options.env, ...env }),
          // The values reach the container through the client's environment (`-e NAME`), never its command line.
          { cwd: repoRoot, env: { ...this.options.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] },
        )
      : spawn(process.execPath, [entry], {
          cwd: repoRoot,
          env: { ...this.options.env, ...env },
          stdio: ['ignore', 'pipe', 'pipe', ...(ipc ? (['ipc'] as const) : [])],
        });
    child.stdout?.pipe(log);
    child.stderr?.pipe(log);
    child.once('exit', () => log.end());
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    return child;
  }

  /**
   * How to signal a bot. A container's engine client passes signals on to the container and exits with its exit code
   * (sig-proxy), except SIGKILL, which would kill only the client: that one goes through the engine (`kill`).
   */
  private killer(child: ChildProcess, logName: string, attempt: number): (signal: NodeJS.Signals) => boolean {
    const { container } = this.options;
    if (!container) return (signal) => child.kill(signal);
    const name = containerName(logName, attempt > 0 ? { BOT_ATTEMPT: String(attempt) } : {});
    return (signal) => {
      if (signal !== 'SIGKILL') return child.kill(signal);
      if (child.exitCode !== null || child.signalCode !== null) return false;
      const { command, globalArgs } = container.engine;
      spawn(command, [...globalArgs, 'kill', '--signal', 'KILL', name], { stdio: 'ignore' }).once(
        'exit',
        // No such container (the engine is still creating it): the client at least goes.
        (code) => code !== 0 && child.kill('SIGKILL'),
      );
      return true;
    };
  }

  /**
   * The local PoolScaler: idle bots on top of BOT_POOL_SIZE (the scheduler's, for the sessions due soon), started
   * now; the pool never holds more than `maxAddedIdle` beyond its size, and does not refill them once they are used.
   */
  async grow(by: number): Promise<{ desired: number; max: number }> {
    const size = this.options.container ? 0 : (this.options.poolSize ?? 0);
    const max = size > 0 ? size + maxAddedIdle : 0;
    const current = this.pooledPlaces() + this.spawning;
    const desired = Math.max(current, Math.min(max, current + by));
    for (let n = current; n < desired && !this.closing; n++) {
      this.spawning++;
      void this.startPooled()
        .catch((err) => this.options.onPoolError?.(err))
        .finally(() => this.spawning--);
    }
    return { desired, max };
  }

  /** Pooled bots not released: idle ones and those serving a session. */
  private pooledPlaces(): number {
    return [...this.children.values()].filter((c) => c.poolBotId && !c.released).length;
  }

  /** Starts idle pooled bots until BOT_POOL_SIZE wait (the stack calls it once; exits and joins refill). */
  fillPool(): void {
    const size = this.options.container ? 0 : (this.options.poolSize ?? 0);
    for (let n = this.pooledPlaces() + this.spawning; n < size && !this.closing; n++) {
      this.spawning++;
      void this.startPooled()
        .catch((err) => {
          this.options.onPoolError?.(err);
          this.idleDeaths++;
          setTimeout(() => this.fillPool(), this.refillDelayMs()).unref();
        })
        .finally(() => this.spawning--);
    }
  }

  /** The bot processes running now, idle pooled ones included (what MAX_BOTS bounds locally). */
  async botCount(): Promise<number> {
    return this.children.size + this.spawning;
  }

  /** The pooled bots now: idle ones and those serving the session they claimed. */
  get pool(): PooledBot[] {
    return [...this.children.values()]
      .filter((c) => c.poolBotId)
      .map((c) => ({
        poolBotId: c.poolBotId!,
        pid: c.process.pid,
        ready: Boolean(c.ready),
        ...(c.botId && { botId: c.botId }),
      }));
  }

  /** Sends a signal to a pooled bot (tests: SIGKILL one that is idle). */
  signalPooled(poolBotId: string, signal: NodeJS.Signals): boolean {
    return this.children.get(`pool#${poolBotId}`)?.kill(signal) ?? false;
  }

  private refillDelayMs(): number {
    return this.idleDeaths <= 1 ? 0 : backoffMs(this.idleDeaths - 2, { baseMs: 250, maxMs: 30_000 });
  }

  private async startPooled(): Promise<void> {
    const poolBotId = `pool-${randomUUID()}`;
    const child = await this.spawnBot(poolBotId, { POOL_BOT_ID: poolBotId }, true);
    const key = `pool#${poolBotId}`;
    const bot: BotChild = { attempt: 0, process: child, poolBotId, kill: (signal) => child.kill(signal) };
    if (this.closing) child.kill('SIGTERM');
    this.children.set(key, bot);
    let backstop: NodeJS.Timeout | undefined;
    const release = () => {
      clearTimeout(backstop);
      if (bot.released) return;
      bot.released = true;
      this.fillPool();
    };
    child.on('message', (m: PoolReport) => {
      if ('ready' in m) bot.ready = true;
      else if ('joined' in m) release();
      else if ('claimed' in m) {
        // From here it is the session's bot (stop, signal and pid find it); the pool refills behind it once it is in.
        bot.botId = m.claimed;
        bot.claiming = undefined;
        this.linkLog(poolBotId, m.claimed);
        this.idleDeaths = 0;
        backstop = setTimeout(release, refillBackstopMs).unref();
      } else bot.claiming = m.claiming ?? undefined;
    });
    child.once('exit', (code, signal) => {
      this.children.delete(key);
      if (bot.botId) release();
      const botId = bot.botId ?? bot.claiming;
      if (botId) this.options.onExit?.(botId, code, signal, 0, poolBotId);
      if (!bot.botId) {
        // Died (or was stopped) idle: no session is touched; another takes its place.
        this.idleDeaths++;
        setTimeout(() => this.fillPool(), this.refillDelayMs()).unref();
      }
    });
  }

  async stop(botId: string): Promise<void> {
    for (const child of this.childrenOf(botId)) child.kill('SIGTERM');
  }

  /** Sends a signal to the bot's newest process (tests use SIGKILL to simulate a crash, SIGTERM a platform stop). */
  signal(botId: string, signal: NodeJS.Signals): boolean {
    return this.childrenOf(botId).at(-1)?.kill(signal) ?? false;
  }

  /** The OS process id of a bot's newest running child (benchmarks read its /proc figures); undefined once gone. */
  pid(botId: string): number | undefined {
    return this.childrenOf(botId).at(-1)?.process.pid;
  }

  /** How the bot's newest process (or container) ends: its exit code or signal; undefined when none runs. */
  exited(botId: string): Promise<{ code: number | null; signal: NodeJS.Signals | null }> | undefined {
    const child = this.childrenOf(botId).at(-1)?.process;
    if (!child) return undefined;
    return new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null)
        return resolve({ code: child.exitCode, signal: child.signalCode });
      child.once('exit', (code, signal) => resolve({ code, signal }));
    });
  }

  /** Which task of the bot runs now (the newest attempt), or undefined when none does. */
  attempt(botId: string): number | undefined {
    return this.childrenOf(botId).at(-1)?.attempt;
  }

  private childrenOf(botId: string): BotChild[] {
    return [...this.children.values()].filter((c) => c.botId === botId).sort((a, b) => a.attempt - b.attempt);
  }

  /** Bot processes serving sessions (idle pooled bots are not counted). */
  get running(): number {
    return [...this.children.values()].filter((c) => c.botId).length;
  }

  /** Stops every child, idle pooled bots too: SIGTERM (the bot's own exit pipeline), then SIGKILL after `graceMs`. */
  async closeAll(graceMs = 5000): Promise<void> {
    this.closing = true;
    const waits = [...this.children.values()].map(
      ({ process: child, kill }) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          const timer = setTimeout(() => kill('SIGKILL'), graceMs);
          child.once('exit', () => {
            clearTimeout(timer);
            resolve();
          });
          kill('SIGTERM');
        }),
    );
    await Promise.all(waits);
  }
}

/** One container per bot task: named for its session and attempt, so the runner can signal it. */
function containerName(logName: string, env: Record<string, string>): string {
  return `meeting-bot-${logName}${env.BOT_ATTEMPT ? `-${env.BOT_ATTEMPT}` : ''}`;
}
