// The API reference at GET /docs: Swagger UI (swagger-ui-dist) rendering /openapi.json, every asset served from
// node_modules by this server, so the page works with no network at all (no CDN, no validator badge, no fonts).
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { send, sendError } from './http';

const distDir = dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));

/** The files the page loads, by the name it asks for them; nothing else of the package is served. */
const assets: Record<string, { file: string; type: string }> = {
  'swagger-ui.css': { file: 'swagger-ui.css', type: 'text/css; charset=utf-8' },
  'swagger-ui-bundle.js': { file: 'swagger-ui-bundle.js', type: 'text/javascript; charset=utf-8' },
  'favicon-32x32.png': { file: 'favicon-32x32.png', type: 'image/png' },
};

// A file of its own rather than an inline script, so the page needs no 'unsafe-inline' in its CSP.
const initScript = `window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  // The default validator badge would call validator.swagger.io with the document.
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
  layout: 'BaseLayout',
});
`;

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Meeting Bot Service API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head><body><div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body></html>
`;

// Only this server: Swagger UI fetches /openapi.json and renders with inline styles and data: images.
const csp =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'";

export function apiDocs() {
  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const { pathname } = new URL(req.url ?? '/', 'http://localhost');
    // Another method falls through to the API's own answer for no route (404 not_found, our error body).
    if (req.method !== 'GET' && req.method !== 'HEAD') return false;
    if (pathname !== '/docs' && !pathname.startsWith('/docs/')) return false;
    const name = pathname.replace(/^\/docs\/?/, '');
    if (name === '') {
      send(res, 200, 'text/html; charset=utf-8', page, { 'content-security-policy': csp });
    } else if (name === 'init.js') {
      send(res, 200, 'text/javascript; charset=utf-8', initScript);
    } else if (Object.hasOwn(assets, name)) {
      const asset = assets[name]!;
      send(res, 200, asset.type, await readFile(join(distDir, asset.file)), {
        'cache-control': 'public, max-age=3600',
      });
    } else {
      sendError(res, 404, 'not_found', `no ${pathname}: the API reference is at /docs`, 'Not found.');
    }
    return true;
  };
}
