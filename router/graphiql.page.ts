import type { renderGraphiQL as renderYogaGraphiQL } from '@graphql-yoga/render-graphiql';
import { StaticAsset } from '../subgraphs/shared/static-asset.js';

/** Where GraphiQL's files are served (the listener routes this prefix here). */
export const GRAPHIQL_ASSETS = '/graphql/assets/';

/** What Yoga passes to a GraphiQL renderer: the gateway's `graphiql` option and its defaults. */
type GraphiQLOptions = NonNullable<Parameters<typeof renderYogaGraphiQL>[0]>;

const JS = 'text/javascript; charset=utf-8';

/** Monaco's worker labels, as Yoga's GraphiQL asks for them, and the file each one runs. */
const WORKERS = { editorWorkerService: 'editor.worker.js', json: 'json.worker.js', graphql: 'graphql.worker.js' } as const;

let loading: Promise<Map<string, StaticAsset>> | undefined;

/**
 * Yoga's GraphiQL build as files: script, style sheet, favicon and Monaco's three workers. The
 * package exports them as strings (9 MB), loaded at the first page or file asked for, not at start.
 */
function graphiqlAssets(): Promise<Map<string, StaticAsset>> {
  loading ??= import('@graphql-yoga/render-graphiql/graphiql').then((build) => {
    return new Map([
      ['graphiql.js', new StaticAsset(build.js, JS)],
      ['graphiql.css', new StaticAsset(build.css, 'text/css; charset=utf-8')],
      ['favicon.ico', fromDataUrl(build.favicon) ?? new StaticAsset('', 'image/x-icon')],
      [WORKERS.editorWorkerService, new StaticAsset(build.editorWorkerService, JS)],
      [WORKERS.json, new StaticAsset(build.jsonWorker, JS)],
      [WORKERS.graphql, new StaticAsset(build.graphqlWorker, JS)],
    ]);
  });
  return loading;
}

/** One of GraphiQL's files for a GET or HEAD under {@link GRAPHIQL_ASSETS}; null for anything else. */
export async function graphiqlAsset(request: Request): Promise<Response | null> {
  if (request.method !== 'GET' && request.method !== 'HEAD') return null;
  const name = new URL(request.url).pathname.slice(GRAPHIQL_ASSETS.length);
  const asset = (await graphiqlAssets()).get(name);
  return asset ? asset.respond(request) : null;
}

/**
 * GraphiQL's page (a few KB): Yoga's own page, with its script, style sheet and workers linked
 * by versioned URLs instead of inlined, so that browsers fetch them compressed, once.
 */
export async function renderGraphiQL(options: GraphiQLOptions = {}): Promise<string> {
  const assets = await graphiqlAssets();
  const url = (name: string) => assets.get(name)!.url(`${GRAPHIQL_ASSETS}${name}`);
  const workers = Object.fromEntries(Object.entries(WORKERS).map(([label, name]) => [label, url(name)]));
  // The gateway's favicon is a 70 KB data: URL: a file too, so that the page stays small.
  const { favicon, ...rendered } = options;
  const icon = favicon === undefined ? undefined : fromDataUrl(favicon);
  if (icon && !assets.has(`favicon-${icon.version}`)) assets.set(`favicon-${icon.version}`, icon);
  const faviconUrl = icon ? url(`favicon-${icon.version}`) : (favicon ?? url('favicon.ico'));
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>${escapeHtml(options.title ?? 'GraphiQL')}</title>
  <link rel="icon" href="${escapeHtml(faviconUrl)}">
  <link rel="stylesheet" href="${url('graphiql.css')}">
</head>
<body id="body" class="no-focus-outline">
  <noscript>You need to enable JavaScript to run this app.</noscript>
  <div id="root"></div>
  <script>
    const workers = ${scriptJson(workers)};
    self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (_moduleId, label) => workers[label] };
  </script>
  <script src="${url('graphiql.js')}"></script>
  <script>
    YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'), ${scriptJson(rendered)});
  </script>
</body>
</html>`;
}

/** A base64 `data:` URL's bytes as an asset of its media type; undefined for any other URL. */
function fromDataUrl(url: string): StaticAsset | undefined {
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return data ? new StaticAsset(Buffer.from(data[2]!, 'base64'), data[1]!) : undefined;
}

/** JSON safe inside a `<script>`: no `</script>` or `<!--` can end it, nor a line separator break it. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
