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

  it("the API guide's endpoint table lists every route of the route table", () => {
    const guide = readFileSync(new URL('../../docs/api.md', import.meta.url), 'utf8');
    const api = guide.slice(guide.indexOf('## Endpoints'), guide.indexOf('## Start a bot'));
    for (const r of routeTable) expect(api, `${r.method} ${r.path}`).toContain(`| \`${r.method} ${r.path}\``);
  });

  it('a transcript page and transcript.data carry the same Utterance', () => {
    // biome-ignore lint/suspicious/noExplicitAny: reads into generated JSON Schema
    const schemas = doc.components.schemas as Record<string, { properties: Record<string, any> }>;
    const utterance = { $ref: '#/components/schemas/Utterance' };
    expect(schemas.TranscriptPage!.properties.utterances.items).toEqual(utterance);
    expect(schemas.TranscriptDataEvent!.properties.data.properties.utterances.items).toEqual(utterance);
    expect(Object.keys(schemas.Utterance!.properties)).toEqual([
      'speaker',
      'participant_id',
      'text',
      'started_at',
      'seq',
      'is_bot',
    ]);
    const params = doc.paths['/api/bot/{bot_id}/transcript'].get.parameters.map((p) => [
      p.name,
      p.in,
      p.schema,
    ]);
    expect(params).toEqual([
      ['bot_id', 'path', { type: 'string', format: 'uuid' }],
      ['after_seq', 'query', expect.objectContaining({ type: 'integer', minimum: 0, default: 0 })],
      [
        'limit',
        'query',
        expect.objectContaining({ type: 'integer', minimum: 1, maximum: 1000, default: 100 }),
      ],
    ]);
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
