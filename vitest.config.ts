import { defineConfig } from 'vitest/config';

// Projects so a quick run of unit tests takes seconds (STYLE.md): unit, integration (dynalite, the local
// stack over real HTTP), browser (Playwright + Chromium), image (the bot-task container).
export default defineConfig({
  test: {
    // Two test files at a time. Vitest's default on a 2-core machine (CI's and ours) is one (cores − 1), and most of
    // this suite waits on bot processes, browsers, queues and timers rather than on the CPU: two workers take the
    // suite from about 9 minutes to about 5.5, with the same results (measured in two full runs).
    maxWorkers: 2,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', LOG_LEVEL: 'silent' },
    projects: [
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts', 'core/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'infra',
          include: ['test/infra/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
      {
        extends: true,
        test: {
          // The deployed shape against moto_server: bundles, template environment, IAM simulation (test/aws).
          name: 'aws',
          include: ['test/aws/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 300_000,
        },
      },
      {
        extends: true,
        test: {
          // The bot-task image (`npm run image`) run by the local stack as Fargate runs it (test/image): skipped where
          // no container engine is installed, except in CI. One file at a time: each test starts containers.
          name: 'image',
          include: ['test/image/**/*.test.ts'],
          fileParallelism: false,
          testTimeout: 240_000,
          hookTimeout: 900_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'browser',
          include: ['test/browser/**/*.test.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
