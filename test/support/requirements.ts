// What a test file needs from the machine beyond Node (Chromium, moto_server, cfn-lint, a container engine, espeak-ng,
// ffmpeg), and what happens where it is missing: the file's suites are skipped and the reason is printed, once per
// file. In CI (CI=true) a tool .ci/run installs is not optional: its absence is a failing test that says what is
// missing, so a CI machine without Chromium fails instead of passing with every browser test skipped.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { it } from 'vitest';

/** Where the tests and the bot find Chromium (`launchChromium` reads the same variable and default). */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface Requirement {
  /** What the tests need, as the failing test in CI names it: "Chromium", "moto_server". */
  needs: string;
  /** Why it cannot be used here, or undefined when it can. */
  missing: string | undefined;
  /** CI's machine has it (.ci/run installs it or fails), so in CI its absence is a failure, not a skip. */
  ciHasIt: boolean;
}

/** True where the CI runner sets CI=true, as `.ci/run` reads it. */
export const inCi = () => process.env.CI === 'true';

/** Whether `command args` runs and exits 0. */
export function runs(command: string, args: string[]): boolean {
  const r = spawnSync(command, args, { stdio: 'ignore', timeout: 30_000 });
  return !r.error && r.status === 0;
}

const chromium = (): Requirement => ({
  needs: 'Chromium',
  missing: existsSync(chromiumPath)
    ? undefined
    : `Chromium is not at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH)`,
  ciHasIt: true,
});

const motoServer = (): Requirement => ({
  needs: 'moto_server',
  missing: runs('moto_server', ['--help'])
    ? undefined
    : 'moto_server is not installed (pip install "moto[server]==5.2.1")',
  ciHasIt: true,
});

const espeakNg = (): Requirement => ({
  needs: 'espeak-ng',
  missing: runs('espeak-ng', ['--version'])
    ? undefined
    : 'espeak-ng is not installed (apt-get install espeak-ng)',
  ciHasIt: true,
});

const ffmpeg = (): Requirement => ({
  needs: 'ffmpeg',
  missing:
    runs('ffmpeg', ['-version']) && runs('ffprobe', ['-version'])
      ? undefined
      : 'ffmpeg or ffprobe is not installed (apt-get install ffmpeg)',
  ciHasIt: true,
});

/** Any other need: `missing` says why it is not met; `ciHasIt` false for what a clean clone in CI lacks. */
const other = (needs: string, missing: string | undefined, ciHasIt = true): Requirement => ({
  needs,
  missing,
  ciHasIt,
});

/** What a suite can need: `skipReason(requires.chromium(), requires.motoServer())`. */
export const requires = { chromium, motoServer, espeakNg, ffmpeg, other };

const printed = new Set<string>();

/**
 * The reason to skip a suite (`describe.skipIf(skipReason(requires.chromium()))`), printed once per file, or undefined
 * when every requirement is met. In CI, each missing requirement CI has registers a failing test naming it.
 */
export function skipReason(...requirements: Requirement[]): string | undefined {
  const unmet = requirements.filter((r) => r.missing);
  if (unmet.length === 0) return undefined;
  const reason = unmet.map((r) => r.missing).join('; ');
  for (const r of unmet) {
    if (!inCi() || !r.ciHasIt || printed.has(`ci:${r.needs}`)) continue;
    printed.add(`ci:${r.needs}`);
    it(`has ${r.needs}, which CI must run these tests with`, () => {
      throw new Error(
        `${r.missing}: in CI (CI=true) these tests must run, not be skipped (.ci/run installs it)`,
      );
    });
  }
  if (!printed.has(reason)) {
    printed.add(reason);
    const failing = inCi() && unmet.some((r) => r.ciHasIt);
    console.warn(`${failing ? 'skipped, and failed in CI' : 'skipped'}: ${reason}`);
  }
  return reason;
}
