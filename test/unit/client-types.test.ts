// The typed client's types are the committed OpenAPI document's: regenerating them changes nothing (npm run openapi).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { documentFile, generateTypes, typesFile } from '../../client/generate';

describe('client/api-types.ts', () => {
  it('is what openapi-typescript makes of docs/openapi.json (else run npm run openapi)', async () => {
    const document = JSON.parse(readFileSync(documentFile, 'utf8'));
    const committed = readFileSync(typesFile, 'utf8');
    expect(
      committed === (await generateTypes(document)),
      'client/api-types.ts is stale: run npm run openapi',
    ).toBe(true);
  });

  it('would see a change of the document: an operation added there is missing from the committed types', async () => {
    const document = JSON.parse(readFileSync(documentFile, 'utf8'));
    document.paths['/api/bot/{bot_id}/pause'] = {
      post: { operationId: 'pauseBot', responses: { '202': { description: 'Paused' } } },
    };
    const regenerated = await generateTypes(document);
    expect(regenerated).toContain('pauseBot');
    expect(readFileSync(typesFile, 'utf8')).not.toContain('pauseBot');
  });
});
