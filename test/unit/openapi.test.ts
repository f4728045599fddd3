import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorStatus } from '../../core/errors';
import { buildOpenApiDocument } from '../../core/openapi';
import { routeTable } from '../../functions/http/route-table';

describe('OpenAPI document', () => {
  const doc = buildOpenApiDocument();

  it('docs/openapi.json matches the schemas (run `npm run openapi` after changing them)', () => {
    const committed = JSON.parse(readFileSync(new URL('../../docs/openapi.json', import.meta.url), 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(doc)));
  });

  it('documents every route of the route table', () => {
    for (const r of routeTable) {
      expect(doc.paths[r.path as keyof typeof doc.paths], r.path).toHaveProperty(r.method.toLowerCase());
    }
  });

  it('documents every error value with its status somewhere', () => {
    const text = JSON.stringify(doc.paths);
    for (const [code, status] of Object.entries(errorStatus)) {
      expect(text, code).toContain(code);
      expect(text, code).toContain(`"${status}"`);
    }
  });

  it('the start request refuses unknown fields and requires room_url', () => {
    const schema = doc.components.schemas.StartRequest as {
      additionalProperties: boolean;
      required: string[];
    };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(['room_url']);
  });
});
