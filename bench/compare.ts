// `npm run bench -- compare <git-ref> [--quick] [name...]`: the given commit and this working tree measured in one window,
// old → new → old, so a claim of "no slower" rests on figures taken under the same machine conditions (api-latency by
// default). The commit is checked out in a temporary worktree and removed afterwards.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { figuresOf, regressionRatio } from './baseline';
import type { Table } from './run';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));

interface Tree {
  label: string;
  dir: string;
}

export async function compare(
  ref: string,
  names: string[],
  quick: boolean,
): Promise<{ table: Table; regressed: boolean }> {
  return withOldTree(ref, async (sha, oldDir, scratch) => {
    const oldTree: Tree = { label: sha.slice(0, 8), dir: oldDir };
    const newTree: Tree = { label: 'this tree', dir: repoRoot };
    const table: Table = [['figure', `${oldTree.label} (1)`, 'new', `${oldTree.label} (2)`, 'new / old', '']];
    let regressed = false;
    for (const name of names) {
      const [old1, now, old2] = [oldTree, newTree, oldTree].map((tree, i) =>
        runBenchmark(tree, name, quick, join(scratch, `run-${name}-${i}`)),
      );
      const before1 = new Map(figuresOf(old1).map((f) => [f.path, f.value]));
      const before2 = new Map(figuresOf(old2).map((f) => [f.path, f.value]));
      for (const f of figuresOf(now)) {
        const a = before1.get(f.path);
        const b = before2.get(f.path);
        if (a === undefined || b === undefined) continue;
        const old = (a + b) / 2;
        const ratio = old > 0 ? f.value / old : Number.NaN;
        const flagged = f.kind === 'cpu' && ratio > regressionRatio;
        regressed ||= flagged && !quick;
        table.push([
          `${name}: ${f.path}`,
          fmt(a),
          fmt(f.value),
          fmt(b),
          Number.isNaN(ratio) ? '-' : `${ratio.toFixed(2)}×`,
          flagged && !quick ? 'REGRESSION' : '',
        ]);
      }
    }
    table.push([
      `(old, new, old in one window; the ratio is new over the mean of the two old runs; CPU per request above ${regressionRatio}× is flagged${quick ? ' — but not in a quick run' : ''})`,
    ]);
    return { table, regressed };
  });
}

/**
 * `--paired`: the given commit and this tree measured in alternation, both stacks up at once (bench/paired.ts); the
 * figures are also written to bench/results/paired-compare.json.
 */
export async function comparePaired(ref: string, quick: boolean): Promise<Table> {
  return withOldTree(ref, async (sha, oldDir) => {
    const { pairedCompare } = await import('./paired');
    const { table, figures } = await pairedCompare(
      [
        { label: sha.slice(0, 8), dir: oldDir },
        { label: 'this tree', dir: repoRoot },
      ],
      quick,
    );
    if (!quick) {
      const head = git(['rev-parse', '--short', 'HEAD'], repoRoot).trim();
      writeFileSync(
        join(repoRoot, 'bench/results/paired-compare.json'),
        `${JSON.stringify({ timestamp: new Date().toISOString(), old: sha, new: head, ...figures }, null, 2)}\n`,
      );
    }
    return table;
  });
}

/** The commit checked out in a temporary worktree with its dependencies, for `fn`; always removed after. */
async function withOldTree<T>(
  ref: string,
  fn: (sha: string, oldDir: string, scratch: string) => Promise<T>,
): Promise<T> {
  const sha = git(['rev-parse', '--verify', `${ref}^{commit}`], repoRoot).trim();
  const scratch = mkdtempSync(join(tmpdir(), 'bench-compare-'));
  const oldDir = join(scratch, 'old');
  git(['worktree', 'add', '--detach', oldDir, sha], repoRoot);
  try {
    prepareDependencies(oldDir);
    return await fn(sha, oldDir, scratch);
  } finally {
    git(['worktree', 'remove', '--force', oldDir], repoRoot);
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * The old commit runs with its own declared dependencies: this tree's node_modules where package.json declares the
 * same ones, otherwise an install of its own (offline registries allowing).
 */
function prepareDependencies(dir: string): void {
  const declared = (root: string) => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
    return JSON.stringify([pkg.dependencies, pkg.devDependencies, pkg.overrides]);
  };
  if (declared(dir) === declared(repoRoot) && existsSync(join(repoRoot, 'node_modules'))) {
    symlinkSync(join(repoRoot, 'node_modules'), join(dir, 'node_modules'));
    return;
  }
  console.log(`installing the dependencies of ${dir} (its package.json differs from this tree's)`);
  const install = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--ignore-scripts'], {
    cwd: dir,
    stdio: 'inherit',
  });
  if (install.status !== 0) throw new Error(`npm install failed in ${dir}`);
}

/** One benchmark run in its own process; its result file is read from where that tree's driver wrote it. */
function runBenchmark(tree: Tree, name: string, quick: boolean, resultsDir: string): unknown {
  console.log(`\n== compare: ${name} on ${tree.label}`);
  const started = new Date().toISOString();
  const run = spawnSync('npx', ['tsx', 'bench/run.ts', name, ...(quick ? ['--quick'] : [])], {
    cwd: tree.dir,
    stdio: 'inherit',
    env: { ...process.env, BENCH_RESULTS_DIR: resultsDir },
  });
  // An older driver knows no BENCH_RESULTS_DIR and writes into its own (temporary) tree.
  const sub = quick ? 'quick' : '';
  const candidates = [
    join(resultsDir, sub, `${name}.json`),
    join(tree.dir, 'bench/results', sub, `${name}.json`),
  ];
  const file = candidates.find(existsSync);
  if (!file) throw new Error(`${name} on ${tree.label} wrote no result (exit ${run.status})`);
  const outcome = JSON.parse(readFileSync(file, 'utf8')) as {
    ok?: boolean;
    timestamp?: string;
    result?: unknown;
    error?: string;
  };
  // The old tree's committed file is there before its run: only a result written by this run counts.
  if (!outcome.timestamp || outcome.timestamp < started)
    throw new Error(`${name} on ${tree.label} wrote no result of this run (exit ${run.status})`);
  if (!outcome.ok) throw new Error(`${name} on ${tree.label} failed: ${outcome.error}`);
  return outcome.result;
}

function git(args: string[], cwd: string): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8' });
}

function fmt(n: number): string {
  return String(Math.round(n * 1000) / 1000);
}
