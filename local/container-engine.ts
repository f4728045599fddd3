// The container engine on this machine (docker where its daemon answers, else podman) and how it runs the bot image
// as Fargate runs the task: `npm run image`, the local runner's BOT_RUNNER=container and the image tests share it.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { configSchema } from '../core/config';

const run = promisify(execFile);

/** The tag `npm run image` gives the bot-task image, and the local runner's default BOT_IMAGE. */
export const defaultBotImage = 'meeting-bot-task:local';

export interface ContainerEngine {
  kind: 'docker' | 'podman';
  /** The command with its global options (podman's runtime). */
  command: string;
  globalArgs: string[];
}

function answers(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore', timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

/**
 * Docker when its daemon answers (`docker info`), else podman when installed, else undefined. Podman runs under runc
 * where runc is installed: crun, its default, refuses cgroups in hybrid mode (CI's machines).
 */
export function detectEngine(): ContainerEngine | undefined {
  if (answers('docker', ['info'])) return { kind: 'docker', command: 'docker', globalArgs: [] };
  if (!answers('podman', ['--version'])) return undefined;
  return {
    kind: 'podman',
    command: 'podman',
    globalArgs: answers('runc', ['--version']) ? ['--runtime', 'runc'] : [],
  };
}

/**
 * `run` options that give a container what a Fargate task gives the bot (and no more): the image's unprivileged user,
 * a read-only root with a tmpfs /tmp, Fargate's fixed 64 MB /dev/shm, no Linux capabilities, an init process as PID 1
 * (initProcessEnabled in infra/constructs/bot-runtime.ts). The host's network, so a local stack on loopback is
 * reachable. File limits below 65536: podman's defaults exceed what some hosts let a container set.
 */
export function fargateRunArgs(engine: ContainerEngine): string[] {
  return [
    '--user',
    '1000:1000',
    '--read-only',
    '--tmpfs',
    '/tmp',
    '--shm-size',
    '64m',
    '--cap-drop',
    'ALL',
    '--network',
    'host',
    '--init',
    ...(engine.kind === 'podman' ? podmanInitPath() : []),
    '--ulimit',
    'nofile=20000:20000',
    '--ulimit',
    'nproc=20000:20000',
  ];
}

/** Debian's podman looks for catatonit under /usr/libexec/podman; Debian installs it in /usr/bin. */
function podmanInitPath(): string[] {
  try {
    const path = execFileSync('sh', ['-c', 'command -v catatonit'], { encoding: 'utf8' }).trim();
    return path ? ['--init-path', path] : [];
  } catch {
    return [];
  }
}

/** Where BOT_RUNNER=container runs bots: the engine, the image and any extra `run` options (BOT_CONTAINER_ARGS). */
export interface BotContainer {
  engine: ContainerEngine;
  image: string;
  runArgs?: string[];
}

/**
 * The engine's arguments that run one bot task as container `name`. It is given the settings core/config.ts reads,
 * AWS's own variables (credentials, endpoint overrides) and the task's BOT_ID/BOT_ATTEMPT, as the task definition and
 * RunTask give them on ECS; nothing else of the host's environment (PATH, HOME, NODE_OPTIONS) is its business. Only
 * the names are on the command line (`--env NAME`): the values come from the client's environment, `env`.
 * DAILY_JS_MODULE_PATH, a file on the host, is mounted read-only at the same path.
 */
export function botContainerArgs(
  container: BotContainer,
  name: string,
  env: Record<string, string>,
): string[] {
  const settings = new Set([...Object.keys(configSchema.shape), 'BOT_ID', 'BOT_ATTEMPT', 'POOL_BOT_ID']);
  const passed = Object.keys(env).filter((k) => settings.has(k) || k.startsWith('AWS_'));
  const dailyModule = env.DAILY_JS_MODULE_PATH;
  return [
    ...container.engine.globalArgs,
    'run',
    '--rm',
    '--name',
    name,
    ...fargateRunArgs(container.engine),
    ...(dailyModule ? ['--volume', `${dailyModule}:${dailyModule}:ro`] : []),
    ...passed.flatMap((k) => ['--env', k]),
    ...(container.runArgs ?? []),
    container.image,
  ];
}

/** `image inspect --format` of the image, trimmed; undefined when the engine has no such image. */
async function inspectImage(
  engine: ContainerEngine,
  image: string,
  format: string,
): Promise<string | undefined> {
  try {
    const { stdout } = await run(engine.command, [
      ...engine.globalArgs,
      'image',
      'inspect',
      '--format',
      format,
      image,
    ]);
    return stdout.trim();
  } catch {
    return undefined;
  }
}

/** A label of the image, or undefined when it has none or the engine has no such image. */
export async function imageLabel(
  engine: ContainerEngine,
  image: string,
  label: string,
): Promise<string | undefined> {
  const value = await inspectImage(engine, image, `{{index .Config.Labels "${label}"}}`);
  return value && value !== '<no value>' ? value : undefined;
}

/** The image's size in bytes, or undefined when the engine has no such image. */
export async function imageSize(engine: ContainerEngine, image: string): Promise<number | undefined> {
  const value = await inspectImage(engine, image, '{{.Size}}');
  return value === undefined ? undefined : Number(value);
}
