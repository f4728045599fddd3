// bot-task/Dockerfile and its build context (/.dockerignore), read as text: the checks that keep it small, pinned and
// unprivileged. The image itself is built and run by the image project (`npm run image`, test/image).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chromiumFlags } from '../../bot-task/providers/daily/chromium';
import { repoRoot } from '../../infra/constructs/service-function';

interface Instruction {
  op: string;
  args: string;
}

/** Instructions of a Dockerfile, continuation lines joined, comments dropped, grouped by stage. */
function parseDockerfile(text: string): { from: string; name?: string; instructions: Instruction[] }[] {
  const logical = text
    .replace(/\\\r?\n/g, ' ')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const stages: { from: string; name?: string; instructions: Instruction[] }[] = [];
  for (const line of logical) {
    const [, op = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    if (op.toUpperCase() === 'FROM') {
      const m = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args)!;
      stages.push({ from: m[1]!, name: m[2], instructions: [] });
    } else {
      stages.at(-1)?.instructions.push({ op: op.toUpperCase(), args });
    }
  }
  return stages;
}

const dockerfile = readFileSync(join(repoRoot, 'bot-task/Dockerfile'), 'utf8');
const stages = parseDockerfile(dockerfile);
const final = stages.at(-1)!;
const all = (op: string, stage = final) => stage.instructions.filter((i) => i.op === op);

describe('bot-task/Dockerfile', () => {
  it('is multi-stage, every base image a pinned Node.js 22 bookworm-slim (version or digest)', () => {
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) {
      expect(stage.from).toMatch(
        /^node:22\.\d+\.\d+-bookworm-slim(@sha256:[0-9a-f]{64})?$|^node@sha256:[0-9a-f]{64}$/,
      );
    }
  });

  it('runs as a non-root user', () => {
    const users = all('USER');
    expect(users.length).toBeGreaterThan(0);
    expect(users.at(-1)!.args).not.toMatch(/^(root|0)(:|$)/);
    // USER comes before the entrypoint, and nothing after it switches back.
    const ops = final.instructions.map((i) => i.op);
    expect(ops.lastIndexOf('USER')).toBeLessThan(ops.lastIndexOf('ENTRYPOINT'));
  });

  it('starts node in exec form (signals reach it) on the bundle the build stage writes', () => {
    const entry = [...all('ENTRYPOINT'), ...all('CMD')];
    expect(entry.length).toBeGreaterThan(0);
    for (const e of entry) expect(() => JSON.parse(e.args)).not.toThrow();
    expect(JSON.parse(all('ENTRYPOINT').at(-1)!.args)).toEqual(['node', 'dist/bot-task/main.mjs']);
  });

  it('copies only the bundle and playwright-core into the final image: no sources, no dev dependencies', () => {
    const copies = all('COPY').concat(all('ADD'));
    expect(copies.map((c) => c.args.replace(/\s+/g, ' '))).toEqual([
      '--from=build /src/node_modules/playwright-core ./node_modules/playwright-core',
      '--from=build /src/dist/bot-task ./dist/bot-task',
    ]);
    expect(
      all('RUN')
        .map((r) => r.args)
        .join('\n'),
    ).not.toMatch(/\bnpm\b|\byarn\b|\bnpx\b/);
  });

  it('installs dependencies in the build stage from the lock file without dev dependencies or install scripts', () => {
    const build = stages[0]!;
    const runs = all('RUN', build).map((r) => r.args);
    expect(runs.some((r) => /npm ci\b.*--omit=dev/.test(r) && /--ignore-scripts/.test(r))).toBe(true);
    // `npm install` only as the fallback of `npm ci` (same lock file; see .ci/run), with the same restrictions.
    for (const r of runs.filter((x) => /npm (i|install)\b/.test(x))) {
      expect(r).toMatch(/npm ci\b[^|]*\|\|\s*npm install\b.*--omit=dev.*--ignore-scripts/s);
    }
    expect(runs.join('\n')).toMatch(/test -s dist\/bot-task\/assets\/harness\.js/);
  });

  it("installs Debian's Chromium and fonts without recommends, and cleans the apt lists", () => {
    const apt = all('RUN')
      .map((r) => r.args)
      .find((r) => r.includes('apt-get install'))!;
    expect(apt).toMatch(/--no-install-recommends/);
    expect(apt).toMatch(/\bchromium\b/);
    expect(apt).toMatch(/\bfonts-/);
    expect(apt).toMatch(/rm -rf \/var\/lib\/apt\/lists/);
    const env = all('ENV')
      .map((e) => e.args)
      .join(' ');
    // The path bot-task/providers/daily/chromium.ts launches by default.
    expect(env).toMatch(/CHROMIUM_PATH=\/usr\/bin\/chromium/);
  });

  it('launches Chromium with the flags of notes/daily-bot.md', () => {
    expect(chromiumFlags).toEqual(
      expect.arrayContaining([
        '--use-fake-ui-for-media-stream',
        '--autoplay-policy=no-user-gesture-required',
        '--disable-dev-shm-usage',
        '--no-sandbox',
      ]),
    );
  });
});

describe('.dockerignore (the build context and the staged CDK asset)', () => {
  const lines = readFileSync(join(repoRoot, '.dockerignore'), 'utf8')
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));

  it('is an allow-list that never lets node_modules, dist or data in', () => {
    expect(lines[0]).toBe('*');
    const included = lines.filter((l) => l.startsWith('!')).map((l) => l.slice(1));
    for (const path of included) expect(path).not.toMatch(/node_modules|^dist|\.data|cdk\.out/);
    expect(lines).toContain('**/node_modules');
  });

  it('lets in everything the Dockerfile copies', () => {
    const included = lines.filter((l) => l.startsWith('!')).map((l) => l.slice(1).replace(/\/$/, ''));
    const sources = all('COPY', stages[0]!)
      .filter((c) => !c.args.startsWith('--from'))
      .flatMap((c) => c.args.split(/\s+/).slice(0, -1));
    for (const src of sources) expect(included, src).toContain(src.replace(/\/$/, ''));
  });
});
