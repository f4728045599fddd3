// `npm run image`: builds bot-task/Dockerfile, unchanged, into meeting-bot-task:local with docker or podman, after
// making sure the engine has the base image it names (pulled, or assembled offline by assemble-base.sh).
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  type ContainerEngine,
  defaultBotImage,
  detectEngine,
  imageLabel,
  imageSize,
} from '../../local/container-engine';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

/** The image must stay below this: Chromium makes it big; a regression that doubles it is caught by the image test. */
export const maxImageBytes = 1.1e9;

function step(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoRoot, stdio: 'inherit' });
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${command} ${args.join(' ')} exited with ${code}`)),
    );
  });
}

/**
 * Podman builds with chroot isolation on the host's network and never pulls: the base is the one ensured here (a
 * pull would fail where Docker Hub is unreachable), and RUN steps reach Debian's mirror and the npm registry directly.
 */
function buildArgs(engine: ContainerEngine, tag: string): string[] {
  const common = [
    '-f',
    'bot-task/Dockerfile',
    '-t',
    tag,
    '--label',
    `${contextLabel}=${contextDigest()}`,
    '.',
  ];
  if (engine.kind === 'docker') return ['build', ...common];
  return [
    ...engine.globalArgs,
    'build',
    '--isolation=chroot',
    '--pull=never',
    '--network',
    'host',
    '--ulimit',
    'nofile=20000:20000',
    '--ulimit',
    'nproc=20000:20000',
    ...common,
  ];
}

/** The image label that records which build context it was built from. */
const contextLabel = 'meeting-bot.context';

/**
 * A digest of the build context: every file (tracked or new, not ignored by git) under the paths /.dockerignore lets
 * in, with its content. An image labelled with another digest was built from other sources.
 */
export function contextDigest(): string {
  const allowed = readFileSync(join(repoRoot, '.dockerignore'), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('!'))
    .map((l) => l.slice(1).replace(/\/$/, ''));
  const files = execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...allowed],
    {
      cwd: repoRoot,
      encoding: 'utf8',
    },
  )
    .split('\n')
    .filter((f) => f && existsSync(join(repoRoot, f)))
    .sort();
  const hash = createHash('sha256');
  for (const f of files)
    hash
      .update(`${f}\0`)
      .update(readFileSync(join(repoRoot, f)))
      .update('\0');
  return hash.digest('hex').slice(0, 16);
}

/** True when `tag` exists and was built from the sources as they are now. */
export async function imageIsCurrent(engine: ContainerEngine, tag = defaultBotImage): Promise<boolean> {
  return (await imageLabel(engine, tag, contextLabel)) === contextDigest();
}

/** Builds the bot image and returns its size in bytes. */
export async function buildImage(engine: ContainerEngine, tag = defaultBotImage): Promise<number> {
  await step('bash', ['scripts/image/assemble-base.sh', engine.command]);
  await step(engine.command, buildArgs(engine, tag));
  const size = await imageSize(engine, tag);
  if (size === undefined) throw new Error(`${tag} was built but ${engine.command} does not list it`);
  return size;
}

export const megabytes = (bytes: number) => `${(bytes / 1e6).toFixed(0)} MB`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const engine = detectEngine();
  if (!engine) {
    console.error('npm run image needs docker (with its daemon running) or podman');
    process.exit(1);
  }
  const tag = process.env.BOT_IMAGE || defaultBotImage;
  const started = Date.now();
  const size = await buildImage(engine, tag);
  console.log(
    `${tag}: ${megabytes(size)} (limit ${megabytes(maxImageBytes)}), built with ${engine.command} in ${Math.round((Date.now() - started) / 1000)} s`,
  );
  if (size > maxImageBytes) process.exit(1);
}
