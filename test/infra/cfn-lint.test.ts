// cfn-lint over the synthesized templates of the default stack and two non-default variants, with the repository's
// .cfnlintrc.yaml (as .ci/run runs it): no errors, and no warning beyond the ones docs/deploy.md explains. Skips,
// saying why, where cfn-lint is not installed; in CI (CI=true) that is a failure.
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../infra/constructs/service-function';
import type { SettingsInput } from '../../infra/settings';
import { requires, skipReason } from '../support/requirements';
import { synthStack } from './synth-stack';

const configFile = join(repoRoot, '.cfnlintrc.yaml');

/** One finding of `cfn-lint --format json`. */
interface Finding {
  Filename: string;
  Level: 'Error' | 'Warning' | 'Informational';
  Message: string;
  Rule: { Id: string };
  Location: { Path: (string | number)[] };
}

/** The installed cfn-lint's version line, or undefined when it is not on PATH. */
function cfnLintVersion(): string | undefined {
  const r = spawnSync('cfn-lint', ['--version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/**
 * Runs cfn-lint in `cwd` (where it picks up a `.cfnlintrc.yaml`). The exit status is a bitmask — 2 error, 4 warning,
 * 8 informational — and 32 means cfn-lint itself failed (bad option or config), which must not pass as "no findings".
 */
function cfnLint(args: string[], cwd: string): { status: number; findings: Finding[] } {
  const r = spawnSync('cfn-lint', ['--format', 'json', ...args], { encoding: 'utf8', cwd });
  if (r.error) throw r.error;
  const status = r.status ?? -1;
  if (status < 0 || status & ~(2 | 4 | 8)) throw new Error(`cfn-lint exited ${status}: ${r.stderr}`);
  return { status, findings: JSON.parse(r.stdout || '[]') as Finding[] };
}

const describeFinding = (f: Finding) => `${f.Rule.Id} ${f.Location.Path.slice(0, 3).join('/')}: ${f.Message}`;

/** The rule ids .cfnlintrc.yaml ignores (its `ignore_checks:` list of `- ID` lines). */
function ignoredRuleIds(): string[] {
  const config = readFileSync(configFile, 'utf8');
  const list = /^ignore_checks:\n((?:[ \t]+-.*\n?)*)/m.exec(config)?.[1] ?? '';
  return [...list.matchAll(/-\s*([A-Z]\d{4})\b/g)].map((m) => m[1]!);
}

const version = cfnLintVersion();
const skip = skipReason(
  requires.other(
    'cfn-lint',
    version ? undefined : 'cfn-lint is not installed (pip install cfn-lint; docs/deploy.md#cfn-lint)',
  ),
);

describe.skipIf(skip)('cfn-lint', () => {
  /** The default settings, the other network mode (with the other knobs that change resources) and production. */
  const variants: Record<string, SettingsInput> = {
    default: {},
    'private network, arm64, on-demand only, one AZ': {
      botNetwork: 'private',
      botTaskArchitecture: 'arm64',
      useFargateSpot: false,
      maxAzs: 1,
    },
    'production with alarm e-mail and CORS': {
      stage: 'prod',
      sesIdentity: 'mail.example.org',
      alarmEmail: 'oncall@example.org',
      corsAllowedOrigins: ['https://app.example.com'],
    },
  };
  let dir = '';
  const templates: Record<string, string> = {};
  let findings: Finding[] = [];
  let status = 0;

  beforeAll(() => {
    console.info(`linting with ${version}`);
    dir = mkdtempSync(join(tmpdir(), 'meeting-bot-cfn-lint-'));
    Object.entries(variants).forEach(([name, settings], i) => {
      // No bundling: the functions' code is an asset either way; the template is what cfn-lint reads. Analytics
      // reporting on, as `cdk synth` has it: cfn-lint skips checks that CDK users cannot act on in a CDK template.
      const s = synthStack(settings, { bundle: false, analyticsReporting: true });
      templates[name] = join(dir, `variant-${i}.template.json`);
      copyFileSync(join(s.outdir, `${s.stack.stackName}.template.json`), templates[name]);
      rmSync(s.outdir, { recursive: true, force: true });
    });
    ({ status, findings } = cfnLint(
      ['--config-file', configFile, '--', ...Object.values(templates)],
      repoRoot,
    ));
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it.each(Object.keys(variants))('finds nothing unexplained in the %s template', (name) => {
    expect(findings.filter((f) => f.Filename === templates[name]).map(describeFinding)).toEqual([]);
  });

  it('exits 0 over all of them, as .ci/run needs', () => {
    expect(status).toBe(0);
  });

  it('ignores only warnings, each explained in docs/deploy.md and each still found without the ignore', () => {
    const ignored = ignoredRuleIds();
    expect(ignored.length).toBeGreaterThan(0);
    const doc = readFileSync(join(repoRoot, 'docs/deploy.md'), 'utf8');
    const at = doc.indexOf('\n## cfn-lint\n');
    expect(at, 'docs/deploy.md has a "## cfn-lint" section').toBeGreaterThan(-1);
    const end = doc.indexOf('\n## ', at + 1);
    const section = doc.slice(at, end < 0 ? undefined : end);
    for (const id of ignored) {
      expect(id).toMatch(/^W\d{4}$/);
      expect(section, `${id} is explained in docs/deploy.md`).toContain(`\`${id}\``);
    }
    // Outside the repository no .cfnlintrc.yaml applies: an ignore that no longer matches anything is dropped.
    const { findings: raw } = cfnLint(['--regions', 'us-east-1', '--', templates.default!], dir);
    const found = new Set(raw.map((f) => f.Rule.Id));
    for (const id of ignored) expect(found, `${id} still occurs`).toContain(id);
  });

  it('fails a broken template with an error, and an unexplained warning too', () => {
    const broken = join(dir, 'broken.template.json');
    writeFileSync(
      broken,
      JSON.stringify({
        Parameters: { Unused: { Type: 'String' } }, // W2001: a parameter nothing uses
        Resources: {
          // E3034: above SQS's 12-hour maximum.
          Queue: { Type: 'AWS::SQS::Queue', Properties: { VisibilityTimeout: 43_201 } },
        },
      }),
    );
    const r = cfnLint(['--config-file', configFile, '--', broken], repoRoot);
    expect(r.status & 2, 'error bit').toBe(2);
    expect(r.status & 4, 'warning bit').toBe(4);
    const ids = new Set(r.findings.map((f) => f.Rule.Id));
    expect(ids).toContain('E3034');
    expect(ids).toContain('W2001');
  });
});
