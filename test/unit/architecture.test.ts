// Dependencies point inward (STYLE.md, ARCHITECTURE.md §5): the domain, the bot runtime and the handlers speak to
// the stores through their ports in core/ports; only the adapters, the composition roots and the tests may import
// the DynamoDB adapter.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const dynamodbAdapter = 'core/adapters/dynamodb';

/** Where the DynamoDB adapter may not be imported from, and the files there that wire it (composition roots). */
const guarded = ['core', 'bot-task', 'functions'];
const allowed = ['core/adapters/', 'functions/runtime.ts'];

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|mts|js|mjs)$/.test(e.name) ? [path] : [];
  });
}

/** Repository paths of the relative modules a file imports: static, side-effect, re-export and dynamic imports. */
function importsOf(file: string): string[] {
  const text = readFileSync(join(root, file), 'utf8');
  const specifiers = [
    ...text.matchAll(/\bfrom\s*['"]([^'"]+)['"]/g),
    ...text.matchAll(/\bimport\s*['"]([^'"]+)['"]/g),
    ...text.matchAll(/\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1]!);
  return specifiers
    .filter((s) => s.startsWith('.'))
    .map((s) =>
      relative(root, resolve(root, dirname(file), s))
        .split(sep)
        .join('/'),
    );
}

const importsDynamodb = (file: string) =>
  importsOf(file).some((p) => p === dynamodbAdapter || p.startsWith(`${dynamodbAdapter}/`));

describe('architecture', () => {
  it('the domain, the bot-task and the handlers never import the DynamoDB adapter, only the store ports', () => {
    const files = guarded.flatMap(sourceFiles).filter((f) => !allowed.some((a) => f.startsWith(a)));
    // The scan must see the modules that use the stores, or it would pass by looking at nothing.
    expect(files).toEqual(
      expect.arrayContaining([
        'core/deps.ts',
        'core/bots/start-bot.ts',
        'core/delivery/deliver.ts',
        'bot-task/transcript-recorder.ts',
        'functions/http/join.ts',
      ]),
    );
    expect(files.filter(importsDynamodb)).toEqual([]);
  });

  it('sees the imports the composition roots are allowed to make (the check can fail)', () => {
    expect(importsDynamodb('core/adapters/wiring.ts')).toBe(true);
    expect(importsDynamodb('admin/target.ts')).toBe(true);
    expect(importsDynamodb('core/bots/finish-session.ts')).toBe(false);
  });

  it('in core, only the adapters import an AWS SDK client; the domain speaks through its ports', () => {
    const files = sourceFiles('core').filter((f) => !f.startsWith('core/adapters/'));
    const vendor = files.filter((f) => /from\s*['"]@aws-sdk\//.test(readFileSync(join(root, f), 'utf8')));
    // The pattern must match the adapters' imports, or the check would pass by matching nothing.
    expect(
      /from\s*['"]@aws-sdk\//.test(readFileSync(join(root, 'core/adapters/sqs/redrive.ts'), 'utf8')),
    ).toBe(true);
    expect(vendor).toEqual([]);
  });

  it('only the adapters import Powertools metrics; the domain records through core/metrics.ts', () => {
    const files = guarded.flatMap(sourceFiles).filter((f) => !f.startsWith('core/adapters/'));
    const vendor = files.filter((f) =>
      readFileSync(join(root, f), 'utf8').includes('@aws-lambda-powertools/metrics'),
    );
    expect(files).toEqual(expect.arrayContaining(['core/metrics.ts', 'core/ports/metrics.ts']));
    expect(vendor).toEqual([]);
  });
});
