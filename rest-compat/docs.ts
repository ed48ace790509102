import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const swaggerDir = (require('swagger-ui-dist') as { getAbsoluteFSPath(): string }).getAbsoluteFSPath();

/** Swagger UI's own files, served from the installed package so that the reference works offline. */
const ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Analytics Platform — REST reference</title>
  <link rel="stylesheet" href="/api/docs/swagger-ui.css">
  <link rel="icon" type="image/png" href="/api/docs/favicon-32x32.png">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/api/docs/swagger-ui-bundle.js"></script>
  <script src="/api/docs/swagger-ui-standalone-preset.js"></script>
  <script>
    window.ui = SwaggerUIBundle({ url: '/api/schema/', dom_id: '#swagger-ui', presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout' });
  </script>
</body>
</html>`;

const cache = new Map<string, Buffer>();

/** `/api/schema/` (the OpenAPI document) and `/api/docs/` (Swagger UI); null for any other path. */
export function serveDocs(method: string, path: string, openapi: Record<string, unknown>): Response | null {
  const trimmed = path.replace(/\/$/, '');
  if (trimmed !== '/schema' && !trimmed.startsWith('/docs')) return null;
  if (method !== 'GET' && method !== 'HEAD') return null;
  if (trimmed === '/schema') return Response.json(openapi);
  if (trimmed === '/docs') return new Response(PAGE, { headers: { 'content-type': 'text/html; charset=utf-8' } });
  const asset = trimmed.slice('/docs/'.length);
  const type = ASSETS[asset];
  if (!type) return null;
  let content = cache.get(asset);
  if (!content) {
    content = readFileSync(join(swaggerDir, asset));
    cache.set(asset, content);
  }
  return new Response(new Uint8Array(content), { headers: { 'content-type': type, 'cache-control': 'public, max-age=86400' } });
}
