// The docs a user reads stay self-contained: no internal issue numbers or references outside the repository in the
// product's code, comments and docs, and every relative link in the docs resolves to a file (and heading) that exists.
// The tests and benchmarks name no issue numbers either: their next reader needs what a test proves.
// Their length is not checked: a page is sized by what its reader needs (byte limits led to trimmed caveats).
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The product: what ships or is read by users. Tests and benchmarks are not (they may read ../shared's data sets). */
const productDirs = ['core', 'bot-task', 'functions', 'infra', 'local', 'admin', 'scripts', 'docs'];
const productRootFiles = ['README.md', 'ARCHITECTURE.md'];
const textExtensions = new Set(['.ts', '.mjs', '.js', '.md', '.json', '.sh', '.html', '.css', '.yaml']);

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : walk(path);
    return [path];
  });
}

const productFiles = [
  ...productDirs.flatMap((d) => walk(join(repoRoot, d))),
  ...productRootFiles.map((f) => join(repoRoot, f)),
].filter(
  (f) =>
    !/\.test\.ts$/.test(f) &&
    (textExtensions.has(extname(f)) || f.endsWith('Dockerfile') || f.endsWith('.sh')),
);

const markdownFiles = productFiles.filter((f) => f.endsWith('.md'));
const rel = (f: string) => relative(repoRoot, f);

/**
 * Internal issue numbers as prose writes them: "#13", "issue 15", "issues #13 and #14". Not matched: another
 * repository's issue (`owner/repo#12`, preceded by a word character), HTML entities (`&#39;`), Markdown anchors
 * (`#13-the-heading`), CSS colours (`color: #059669`, `'#000'`: after a colon or a quote), keys joined by `#`.
 */
function issueReferences(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/\bissues? #?\d+/gi)) found.push(m[0]);
  for (const m of text.matchAll(/(?<![\w&/#])#\d{1,4}(?![\w#-])/g)) {
    const before = text.slice(0, m.index);
    const last = before.trimEnd().at(-1);
    if (last === ':' || last === "'" || last === '"' || /\bissues? $/i.test(before)) continue;
    found.push(m[0]);
  }
  return found;
}

/** The interface's section numbers ("spec §6.2"): the document is not in the repository, so they point nowhere. */
function specSectionReferences(text: string): string[] {
  return [...text.matchAll(/spec §|§ ?\d/gi)].map((m) => m[0]);
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to dashes; repeats get -1, -2, … */
function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of stripCode(markdown).split('\n')) {
    const h = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!h) continue;
    const base = h[1]!
      .replace(/`/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

/** Markdown without fenced code blocks and inline code, where a `[x](y)` is not a link. */
function stripCode(markdown: string): string {
  return markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '').replace(/`[^`\n]*`/g, '');
}

/** Every link target of a Markdown text: inline links and images. */
function linkTargets(markdown: string): string[] {
  return [...stripCode(markdown).matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map(
    (m) => m[1]!,
  );
}

describe('the docs', () => {
  it('the product never points at ../shared, which a clone does not have', () => {
    expect(productFiles.length).toBeGreaterThan(100);
    const hits = productFiles.filter((f) => readFileSync(f, 'utf8').includes('../shared')).map(rel);
    expect(hits).toEqual([]);
  });

  it('the product names no internal issue numbers and no section numbers of the interface document', () => {
    const hits = productFiles.flatMap((f) => {
      const lines = readFileSync(f, 'utf8').split('\n');
      return lines.flatMap((line, i) =>
        [...issueReferences(line), ...specSectionReferences(line)].map((m) => `${rel(f)}:${i + 1}: ${m}`),
      );
    });
    expect(hits).toEqual([]);
  });

  it('every relative link in the docs resolves to a file in the repository, and its heading exists', () => {
    expect(markdownFiles.length).toBeGreaterThan(5);
    const broken: string[] = [];
    for (const file of markdownFiles) {
      const text = readFileSync(file, 'utf8');
      for (const target of linkTargets(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
        const [path, anchor] = target.split('#') as [string, string | undefined];
        const resolved = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
        if (!resolved.startsWith(`${repoRoot}/`) && resolved !== repoRoot) {
          broken.push(`${rel(file)}: ${target} (outside the repository)`);
          continue;
        }
        let exists = true;
        try {
          statSync(resolved);
        } catch {
          exists = false;
        }
        if (!exists) {
          broken.push(`${rel(file)}: ${target} (no such file)`);
          continue;
        }
        if (
          anchor &&
          resolved.endsWith('.md') &&
          !headingAnchors(readFileSync(resolved, 'utf8')).has(anchor)
        ) {
          broken.push(`${rel(file)}: ${target} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });
});

describe('the tests and benchmarks', () => {
  it('name no internal issue numbers: a comment says what a test proves, not which issue asked for it', () => {
    const files = [
      ...walk(join(repoRoot, 'test')),
      ...walk(join(repoRoot, 'bench')),
      ...walk(join(repoRoot, 'core')),
    ]
      .filter(
        (f) => /\.(ts|mjs|js)$/.test(f) && (!f.startsWith(join(repoRoot, 'core')) || f.endsWith('.test.ts')),
      )
      .map(rel)
      .filter((f) => f !== 'test/unit/docs.test.ts');
    expect(files.length).toBeGreaterThan(100);
    const hits = files.flatMap((f) =>
      readFileSync(join(repoRoot, f), 'utf8')
        .split('\n')
        .flatMap((line, i) => issueReferences(line).map((m) => `${f}:${i + 1}: ${m}`)),
    );
    expect(hits).toEqual([]);
  });
});

describe('the checks themselves', () => {
  it('find issue numbers in prose, not colours, entities, anchors or other repositories', () => {
    expect(issueReferences('the warm pool (issue 15) and issue #13 §2; see #14')).toEqual([
      'issue 15',
      'issue #13',
      '#14',
    ]);
    expect(issueReferences("color: #059669; background:#000; ctx.fill = '#1f2937'; &#39;")).toEqual([]);
    expect(issueReferences('[x](#13-the-heading) pipecat-ai/pipecat#2241')).toEqual([]);
    expect(issueReferences('sessionKey = bot-1#1#true, a key of parts joined by #')).toEqual([]);
  });

  it('find section numbers of the interface document', () => {
    expect(specSectionReferences('(spec §6.2) and ARCHITECTURE.md §4')).toEqual(['spec §', '§4']);
    expect(specSectionReferences('the interface leaves it open')).toEqual([]);
  });

  it('compute GitHub heading anchors and links outside code', () => {
    expect([
      ...headingAnchors("# The API\n## Errors\n## Errors\n### The warm pool's idle cost\n```\n# no\n```"),
    ]).toEqual(['the-api', 'errors', 'errors-1', 'the-warm-pools-idle-cost']);
    expect(linkTargets('[a](docs/x.md#y) `[b](nope.md)` ![c](img.png "t")\n```\n[d](no.md)\n```')).toEqual([
      'docs/x.md#y',
      'img.png',
    ]);
  });
});
