import { randomBytes } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { GRAPHIQL_ASSETS, graphiqlAsset, renderGraphiQL } from './graphiql.page.js';

const linked = (page: string) => [...page.matchAll(/(?:src|href)="([^"]+)"|"(\/graphql\/assets\/[^"]+)"/g)].map((match) => match[1] ?? match[2]!);

describe('renderGraphiQL', () => {
  it('is a page of a few KB that links its script, style sheet, favicon and workers by versioned URL', async () => {
    const page = await renderGraphiQL({ title: 'Explorer', defaultQuery: '{ me { email } }' });
    expect(Buffer.byteLength(page)).toBeLessThan(8 * 1024);
    expect(page).toContain('<title>Explorer</title>');
    const urls = linked(page);
    for (const name of ['graphiql.js', 'graphiql.css', 'favicon.ico', 'editor.worker.js', 'json.worker.js', 'graphql.worker.js']) {
      expect(urls.some((url) => url.startsWith(`${GRAPHIQL_ASSETS}${name}?v=`)), name).toBe(true);
    }
    expect(urls.every((url) => url.startsWith(GRAPHIQL_ASSETS))).toBe(true);
  });

  it('links a data: URL favicon (the gateway\'s, 70 KB) as a file, not inline', async () => {
    const icon = randomBytes(70 * 1024);
    const page = await renderGraphiQL({ favicon: `data:image/png;base64,${icon.toString('base64')}` });
    expect(Buffer.byteLength(page)).toBeLessThan(8 * 1024);
    const url = linked(page).find((link) => link.startsWith(`${GRAPHIQL_ASSETS}favicon-`))!;
    const response = await graphiqlAsset(new Request(`http://router${url}`));
    expect(response?.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await response!.arrayBuffer()).equals(icon)).toBe(true);
  });

  it('escapes its options: neither a title nor a default query can end the script or the element', async () => {
    const page = await renderGraphiQL({ title: '</title><script>alert(1)</script>', defaultQuery: '# </script><script>alert(2)</script>\n{ me { id } }' });
    expect(page).not.toContain('alert(1)</script>');
    expect(page).not.toContain('alert(2)</script>');
    expect(page).toContain('&#60;/title&#62;');
    expect(page).toContain('\\u003c/script>\\u003cscript>alert(2)');
  });
});

describe('graphiqlAsset', () => {
  it('serves each linked file, compressed and immutable at its versioned URL', async () => {
    const page = await renderGraphiQL();
    for (const url of linked(page)) {
      const response = await graphiqlAsset(new Request(`http://router${url}`, { headers: { 'accept-encoding': 'gzip' } }));
      expect(response?.status, url).toBe(200);
      expect(response!.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const body = Buffer.from(await response!.arrayBuffer());
      const bytes = response!.headers.get('content-encoding') === 'gzip' ? gunzipSync(body) : body;
      expect(bytes.length).toBeGreaterThan(0);
    }
  });

  it('answers the script as JavaScript, and nothing for unknown names or other methods', async () => {
    const script = await graphiqlAsset(new Request(`http://router${GRAPHIQL_ASSETS}graphiql.js`, { method: 'HEAD' }));
    expect(script?.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(script?.headers.get('cache-control')).toBe('no-cache');
    expect(await graphiqlAsset(new Request(`http://router${GRAPHIQL_ASSETS}nothing.js`))).toBeNull();
    expect(await graphiqlAsset(new Request(`http://router${GRAPHIQL_ASSETS}graphiql.js`, { method: 'POST' }))).toBeNull();
  });
});
