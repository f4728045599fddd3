// `npm run image`: builds bot-task/Dockerfile, unchanged, into meeting-bot-task:local with docker or podman, after
// making sure the engine has the base image it names (pulled, or assembled offline by assemble-base.sh).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { type ContainerEngine, defaultBotImage, detectEngine, imageSize } from '../../local/container-engine';

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
  const common = ['-f', 'bot-task/Dockerfile', '-t', tag, '.'];
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
