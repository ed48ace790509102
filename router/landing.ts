const PAGE = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Analytics Platform</title>
  <style>
    body { font: 16px/1.5 system-ui, sans-serif; max-width: 44rem; margin: 4rem auto; padding: 0 1rem; color: #1d1f27; }
    a { color: #1d4aff; }
    code { background: #f2f2f2; padding: 0 .25rem; border-radius: 3px; }
  </style>
</head>
<body>
  <h1>Analytics Platform management API</h1>
  <ul>
    <li><a href="/graphql">GraphQL explorer</a> — <code>POST /graphql</code>, and graphql-ws on the same path</li>
    <li><a href="/api/docs/">REST reference</a> — the OpenAPI document is at <a href="/api/schema/"><code>/api/schema/</code></a></li>
    <li><a href="/healthz">Health</a></li>
  </ul>
  <p>Authenticate with a personal API key: <code>Authorization: Bearer phx_…</code>.</p>
</body>
</html>`;

/** The page at `/`: where the explorers are. */
export function landingPage(): string {
  return PAGE;
}
