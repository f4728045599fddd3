// A browser test file run where Chromium is missing (CHROMIUM_PATH at no file), by vitest in a child process as CI
// runs it: with CI=true the run fails and says that Chromium is missing; without it the file is skipped and the
// reason is printed. So a CI machine without Chromium can never pass the browser project by skipping it.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const repoRoot = join(import.meta.dirname, '..', '..');
const missingChromium = '/nonexistent/chromium';

/** `npx vitest run` of one browser test file, with `env` over this process's environment minus vitest's own. */
function vitestRun(env: Record<string, string>) {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k !== 'CI' && k !== 'NODE_ENV'),
  );
  const r = spawnSync(
    process.execPath,
    [
      join(repoRoot, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--project=browser',
      'test/browser/chromium-signals.test.ts',
    ],
    {
      cwd: repoRoot,
      encoding: 'utf8',
      timeout: 50_000,
      env: { ...inherited, NO_COLOR: '1', CHROMIUM_PATH: missingChromium, ...env },
    },
  );
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

describe('a browser test file where Chromium is missing', () => {
  it('fails in CI (CI=true), naming what is missing', () => {
    const { status, output } = vitestRun({ CI: 'true' });
    expect(output).toContain('has Chromium, which CI must run these tests with');
    expect(output).toContain(`Chromium is not at ${missingChromium}`);
    expect(output).toMatch(/Tests\s+1 failed/);
    expect(status, output).toBe(1);
  });

  it('is skipped elsewhere, with the reason printed', () => {
    const { status, output } = vitestRun({});
    expect(output).toContain(`skipped: Chromium is not at ${missingChromium}`);
    expect(output).toMatch(/Tests\s+\d+ skipped/);
    expect(output).not.toMatch(/failed/);
    expect(status, output).toBe(0);
  });
});
