// ARCHITECTURE.md's Mermaid diagrams parse with Mermaid itself (its browser bundle in Chromium, offline): a diagram
// GitHub would show as an error box fails here first. Mermaid is a development dependency: without it (or without
// Chromium) the test says why it was skipped, and in CI fails.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../bot-task/providers/daily/chromium';
import { chromiumPath, requires, skipReason } from '../support/requirements';

const repoRoot = join(import.meta.dirname, '..', '..');

function mermaidBundle(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('mermaid/dist/mermaid.min.js');
  } catch {
    return undefined;
  }
}

const bundle = mermaidBundle();
const skip = skipReason(
  requires.chromium(),
  requires.other('mermaid', bundle ? undefined : 'the mermaid package is not installed (npm install)'),
);

/** The text of every ```mermaid block of a Markdown file, in order. */
const diagramsOf = (markdown: string) =>
  [...markdown.matchAll(/^```mermaid\n([\s\S]*?)^```$/gm)].map((m) => m[1]!);

describe.skipIf(skip)('ARCHITECTURE.md diagrams', () => {
  let browser: Browser;
  let page: Page;
  beforeAll(async () => {
    browser = await launchChromium(chromiumPath);
    const context = await browser.newContext();
    // Nothing but the bundle, read from disk: the parse must not need the network.
    await context.route('**/*', (route) => route.abort('internetdisconnected'));
    page = await context.newPage();
    await page.setContent('<!doctype html><html><body></body></html>');
    await page.addScriptTag({ content: readFileSync(bundle!, 'utf8') });
  });
  afterAll(() => browser?.close());

  /** Mermaid's own parser's verdict on one diagram: null when it parses, else its error message. */
  const parse = (text: string) =>
    page.evaluate(async (t) => {
      const mermaid = (globalThis as unknown as { mermaid: { parse(t: string): Promise<unknown> } }).mermaid;
      try {
        await mermaid.parse(t);
        return null;
      } catch (err) {
        return err instanceof Error ? err.message : String(err);
      }
    }, text);

  it('every diagram parses: the shape on AWS, the three sequences (join, utterance, end), the bot’s states', async () => {
    const diagrams = diagramsOf(readFileSync(join(repoRoot, 'ARCHITECTURE.md'), 'utf8'));
    expect(diagrams.map((d) => d.trimStart().split(/\s/)[0])).toEqual([
      'flowchart',
      'sequenceDiagram',
      'sequenceDiagram',
      'sequenceDiagram',
      'stateDiagram-v2',
    ]);
    for (const d of diagrams) expect(await parse(d), d.split('\n').slice(0, 3).join(' / ')).toBeNull();
  });

  it('the parser refuses what GitHub would show as an error box (a semicolon in a message, a broken arrow)', async () => {
    expect(await parse('sequenceDiagram\n  A->>B: claim, then send\n')).toBeNull();
    // A semicolon ends a statement: the rest of the message is read as a statement and refused.
    expect(await parse('sequenceDiagram\n  A->>B: claim; then send\n')).toEqual(expect.any(String));
    expect(await parse('sequenceDiagram\n  A->>B: one\n  B-->>>: broken\n')).toEqual(expect.any(String));
    expect(await parse('flowchart LR\n  a[one --> b\n')).toEqual(expect.any(String));
  });
});
