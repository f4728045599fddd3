// What a bot container is given when the local stack runs bots in the image (BOT_RUNNER=container): the task's
// environment and Fargate's limits, nothing of the host's own environment, and secrets never on the command line.
import { afterEach, describe, expect, it } from 'vitest';
import { botContainerArgs, type ContainerEngine, detectEngine } from '../../local/container-engine';
import { startLocalStack } from '../../local/stack';

const podman: ContainerEngine = { kind: 'podman', command: 'podman', globalArgs: ['--runtime', 'runc'] };

const env = {
  PATH: '/usr/local/bin:/usr/bin',
  HOME: '/root',
  NODE_OPTIONS: '--inspect',
  TABLE_NAME: 'meeting-bot',
  LOCAL_STACK: JSON.stringify({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:4567' }),
  DAILY_API_KEY: 'secret-daily-key',
  AWS_ACCESS_KEY_ID: 'stub',
  AWS_ENDPOINT_URL_POLLY: 'http://127.0.0.1:1',
  BOT_ID: 'b-1',
  DAILY_JS_MODULE_PATH: '/tmp/daily-stub-x/daily-stub.js',
};

describe('botContainerArgs', () => {
  const args = botContainerArgs(
    { engine: podman, image: 'meeting-bot-task:local', runArgs: ['--memory=4g'] },
    'meeting-bot-b-1',
    env,
  );
  const passed = args.flatMap((a, i) => (a === '--env' ? [args[i + 1]] : []));

  it('passes the settings, AWS variables and BOT_ID by name only, and nothing else of the environment', () => {
    expect(passed.sort()).toEqual(
      [
        'AWS_ACCESS_KEY_ID',
        'AWS_ENDPOINT_URL_POLLY',
        'BOT_ID',
        'DAILY_API_KEY',
        'DAILY_JS_MODULE_PATH',
        'LOCAL_STACK',
        'TABLE_NAME',
      ].sort(),
    );
    expect(args.join(' ')).not.toContain('secret-daily-key');
  });

  it('runs as Fargate runs the task: uid 1000, read-only root, tmpfs /tmp, 64 MB shm, no capabilities, an init', () => {
    expect(args.slice(0, 6)).toEqual(['--runtime', 'runc', 'run', '--rm', '--name', 'meeting-bot-b-1']);
    const line = args.join(' ');
    for (const option of [
      '--user 1000:1000',
      '--read-only',
      '--tmpfs /tmp',
      '--shm-size 64m',
      '--cap-drop ALL',
      '--network host',
      '--init',
    ])
      expect(line).toContain(option);
  });

  it('mounts the daily-js module read-only at its path, and ends with the extra options, then the image', () => {
    expect(args.join(' ')).toContain(`--volume ${env.DAILY_JS_MODULE_PATH}:${env.DAILY_JS_MODULE_PATH}:ro`);
    expect(args.slice(-2)).toEqual(['--memory=4g', 'meeting-bot-task:local']);
  });
});

describe('without a container engine', () => {
  const path = process.env.PATH;
  afterEach(() => {
    process.env.PATH = path;
  });

  it('finds none, and a stack asked for bot containers refuses to start (before starting anything)', async () => {
    process.env.PATH = '/nonexistent';
    expect(detectEngine()).toBeUndefined();
    await expect(
      startLocalStack({ port: 0, dataDir: null, env: { BOT_RUNNER: 'container', LOG_LEVEL: 'silent' } }),
    ).rejects.toThrow('BOT_RUNNER=container needs docker (its daemon running) or podman');
  });
});
