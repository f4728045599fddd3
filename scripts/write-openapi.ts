// Writes docs/openapi.json from the zod schemas (`npm run openapi`); a unit test fails when the file drifts.
import { writeFileSync } from 'node:fs';
import { buildOpenApiDocument } from '../core/openapi';

writeFileSync(
  new URL('../docs/openapi.json', import.meta.url),
  `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`,
);
process.stdout.write('docs/openapi.json written\n');
