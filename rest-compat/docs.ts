import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createRequire } from 'node:module';
import { StaticAsset } from '../subgraphs/shared/static-asset.js';

const require = createRequire(import.meta.url);
// The package's directory, not its main module: that one runs Swagger UI's 1.5 MB browser bundle in
// Node, in every process that serves REST, for nothing.
const swaggerDir = dirname(require.resolve('swagger-ui-dist/package.json'));

/** Swagger UI's own files, served from the installed package so that the reference works offline. */
const FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

const DOCS = '/api/docs/';

/** The page links each file by its versioned URL, so browsers keep the files and revalidate only the page. */
function page(files: Map<string, StaticAsset>): StaticAsset {
  const url = (name: string) => files.get(name)!.url(`${DOCS}${name}`);
  return new StaticAsset(
    `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Analytics Platform — REST reference</title>
  <link rel="stylesheet" href="${url('swagger-ui.css')}">
  <link rel="icon" type="image/png" href="${url('favicon-32x32.png')}">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="${url('swagger-ui-bundle.js')}"></script>
  <script src="${url('swagger-ui-standalone-preset.js')}"></script>
  <script>
    // No validator badge: it would send the document's URL to validator.swagger.io. A filter by
    // tag, since Swagger UI renders a long document's operations only as the page scrolls.
    window.ui = SwaggerUIBundle({ url: '/api/schema/', dom_id: '#swagger-ui', presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset], layout: 'StandaloneLayout', validatorUrl: null, filter: true });
  </script>
</body>
</html>`,
    'text/html; charset=utf-8',
  );
}

let assets: Map<string, StaticAsset> | undefined;

/** Swagger UI's page and files by name (`''` is the page), read at the first request for any. */
function docsAssets(): Map<string, StaticAsset> {
  if (!assets) {
    const files = new Map(Object.entries(FILES).map(([name, type]) => [name, new StaticAsset(readFileSync(join(swaggerDir, name)), type)]));
    assets = new Map([...files, ['', page(files)]]);
  }
  return assets;
}

const documents = new WeakMap<Record<string, unknown>, StaticAsset>();

/** The OpenAPI document (400 KB) serialized and compressed once, with an ETag: Swagger UI fetches it on every visit. */
function documentAsset(openapi: Record<string, unknown>): StaticAsset {
  let asset = documents.get(openapi);
  if (!asset) {
    asset = new StaticAsset(JSON.stringify(openapi), 'application/json');
    documents.set(openapi, asset);
  }
  return asset;
}

/** `/api/schema/` (the OpenAPI document) and `/api/docs/` (Swagger UI); null for any other path. */
export function serveDocs(request: Request, path: string, openapi: Record<string, unknown>): Response | Promise<Response> | null {
  const method = request.method;
  const trimmed = path.replace(/\/$/, '');
  if (trimmed !== '/schema' && !trimmed.startsWith('/docs')) return null;
  if (method !== 'GET' && method !== 'HEAD') return null;
  if (trimmed === '/schema') return documentAsset(openapi).respond(request);
  const asset = trimmed === '/docs' ? docsAssets().get('') : trimmed.startsWith('/docs/') ? docsAssets().get(trimmed.slice('/docs/'.length)) : undefined;
  return asset ? asset.respond(request) : null;
}
