// The OpenAPI document's examples: every date-time (and e-mail) string carries one, so a reference page shows it
// instead of a string made up from the field's pattern (test/browser/api-docs.test.ts looks at /docs itself).
import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../core/openapi';
import { withExamples } from '../../core/openapi-examples';

/** Every string schema of a given format in the document, with the property it describes. */
function stringsOf(
  node: unknown,
  format: string,
  property = '',
  found: [string, Record<string, unknown>][] = [],
) {
  if (Array.isArray(node)) for (const n of node) stringsOf(n, format, property, found);
  else if (typeof node === 'object' && node !== null) {
    const o = node as Record<string, unknown>;
    if (o.format === format) found.push([property, o]);
    for (const [key, value] of Object.entries(o)) {
      if (key === 'properties') {
        for (const [name, s] of Object.entries(value as object)) stringsOf(s, format, name, found);
      } else stringsOf(value, format, property, found);
    }
  }
  return found;
}

describe('the OpenAPI document’s examples', () => {
  const doc = buildOpenApiDocument();

  it('gives every date-time a date of one plausible meeting, valid for its own pattern', () => {
    const dateTimes = stringsOf(doc, 'date-time');
    expect(dateTimes.length).toBeGreaterThan(20);
    for (const [property, schema] of dateTimes) {
      const [example] = schema.examples as string[];
      expect(example, property).toMatch(new RegExp(String(schema.pattern)));
      expect(new Date(example!).getUTCFullYear(), property).toBe(2026);
    }
    const at = (name: string) =>
      Date.parse((stringsOf(doc, 'date-time').find(([p]) => p === name)![1].examples as string[])[0]!);
    expect(at('started_at')).toBeLessThan(at('completed_at'));
    expect(at('completed_at')).toBeLessThan(at('data_deleted_at'));
  });

  it('gives an e-mail address a readable example', () => {
    for (const [, schema] of stringsOf(doc, 'email')) expect(schema.examples).toEqual(['team@example.com']);
  });

  it('keeps an example a schema already has', () => {
    const schema = { type: 'string', format: 'date-time', examples: ['2030-01-01T00:00:00Z'] };
    expect(withExamples({ properties: { join_at: schema } })).toEqual({ properties: { join_at: schema } });
  });
});
