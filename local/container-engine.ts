// The container engine on this machine (docker where its daemon answers, else podman) and how it runs the bot image
// as Fargate runs the task: `npm run image`, the local runner's BOT_RUNNER=container and the image tests share it.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';

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

/** The image's size in bytes, or undefined when the engine has no such image. */
export async function imageSize(engine: ContainerEngine, image: string): Promise<number | undefined> {
  try {
    const { stdout } = await run(engine.command, [
      ...engine.globalArgs,
      'image',
      'inspect',
      '--format',
      '{{.Size}}',
      image,
    ]);
    return Number(stdout.trim());
  } catch {
    return undefined;
  }
}
