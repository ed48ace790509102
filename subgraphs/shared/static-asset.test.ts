import { randomBytes } from 'node:crypto';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { StaticAsset } from './static-asset.js';

const TEXT = 'const answer = 42;\n'.repeat(2000);
const BASE = 'http://platform/assets/app.js';

function get(asset: StaticAsset, url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Response> {
  return asset.respond(new Request(url, { method, headers }));
}

async function bytesOf(response: Response): Promise<Buffer> {
  return Buffer.from(await response.arrayBuffer());
}

describe(StaticAsset.name, () => {
  describe('respond', () => {
    it('answers the bytes with their type and length, a strong ETag and Vary, when no encoding is accepted', async () => {
      const asset = new StaticAsset(TEXT, 'text/javascript; charset=utf-8');
      const response = await get(asset, BASE);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(response.headers.get('content-encoding')).toBeNull();
      expect(response.headers.get('etag')).toBe(`"${asset.version}"`);
      expect(response.headers.get('vary')).toBe('Accept-Encoding');
      expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(TEXT));
      expect((await bytesOf(response)).toString()).toBe(TEXT);
    });

    it('answers br when accepted, which decodes to the original bytes', async () => {
      const asset = new StaticAsset(TEXT, 'text/javascript; charset=utf-8');
      const response = await get(asset, BASE, { 'accept-encoding': 'gzip, deflate, br, zstd' });
      expect(response.headers.get('content-encoding')).toBe('br');
      const body = await bytesOf(response);
      expect(Number(response.headers.get('content-length'))).toBe(body.length);
      expect(body.length).toBeLessThan(Buffer.byteLength(TEXT) / 10);
      expect(brotliDecompressSync(body).toString()).toBe(TEXT);
      expect(response.headers.get('etag')).toBe(`"${asset.version}-br"`);
    });

    it('answers gzip when br is refused (q=0) or not offered, which decodes to the original bytes', async () => {
      const asset = new StaticAsset(TEXT, 'text/css; charset=utf-8');
      for (const accept of ['gzip', 'br;q=0, gzip;q=0.5', 'br;q=0, *']) {
        const response = await get(asset, BASE, { 'accept-encoding': accept });
        expect(response.headers.get('content-encoding'), accept).toBe('gzip');
        expect(gunzipSync(await bytesOf(response)).toString()).toBe(TEXT);
        expect(response.headers.get('etag')).toBe(`"${asset.version}-gzip"`);
      }
    });

    it('answers identity when every encoding is refused', async () => {
      const asset = new StaticAsset(TEXT, 'text/css; charset=utf-8');
      const response = await get(asset, BASE, { 'accept-encoding': 'br;q=0, gzip;q=0' });
      expect(response.headers.get('content-encoding')).toBeNull();
      expect((await bytesOf(response)).toString()).toBe(TEXT);
    });

    it('keeps incompressible bytes as they are, under the identity ETag', async () => {
      const noise = randomBytes(4096);
      const asset = new StaticAsset(noise, 'image/png');
      const response = await get(asset, BASE, { 'accept-encoding': 'br, gzip' });
      expect(response.headers.get('content-encoding')).toBeNull();
      expect(response.headers.get('etag')).toBe(`"${asset.version}"`);
      expect((await bytesOf(response)).equals(noise)).toBe(true);
    });

    it('answers 304 with no body to If-None-Match naming the representation (weak or strong), or *', async () => {
      const asset = new StaticAsset(TEXT, 'text/javascript; charset=utf-8');
      const first = await get(asset, BASE, { 'accept-encoding': 'br' });
      const etag = first.headers.get('etag')!;
      for (const ifNoneMatch of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
        const again = await get(asset, BASE, { 'accept-encoding': 'br', 'if-none-match': ifNoneMatch });
        expect(again.status, ifNoneMatch).toBe(304);
        expect(again.headers.get('etag')).toBe(etag);
        expect(again.headers.get('vary')).toBe('Accept-Encoding');
        expect(again.headers.get('cache-control')).toBe('no-cache');
        expect(await again.text()).toBe('');
      }
    });

    it('answers 200 when If-None-Match names another content or another encoding', async () => {
      const asset = new StaticAsset(TEXT, 'text/javascript; charset=utf-8');
      const other = new StaticAsset(`${TEXT}// changed\n`, 'text/javascript; charset=utf-8');
      expect((await get(asset, BASE, { 'if-none-match': `"${other.version}"` })).status).toBe(200);
      const gzipped = await get(asset, BASE, { 'accept-encoding': 'gzip', 'if-none-match': `"${asset.version}-br"` });
      expect(gzipped.status).toBe(200);
      expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    });

    it('caches a versioned URL for a year as immutable, and revalidates the bare or outdated URL', async () => {
      const asset = new StaticAsset(TEXT, 'text/javascript; charset=utf-8');
      expect(asset.url('/assets/app.js')).toBe(`/assets/app.js?v=${asset.version}`);
      expect((await get(asset, `http://platform${asset.url('/assets/app.js')}`)).headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect((await get(asset, BASE)).headers.get('cache-control')).toBe('no-cache');
      expect((await get(asset, `${BASE}?v=0123456789abcdef0123`)).headers.get('cache-control')).toBe('no-cache');
    });

    it('answers HEAD with the headers of GET and no body', async () => {
      const asset = new StaticAsset(TEXT, 'text/javascript; charset=utf-8');
      const full = await get(asset, BASE, { 'accept-encoding': 'gzip' });
      const head = await get(asset, BASE, { 'accept-encoding': 'gzip' }, 'HEAD');
      expect(head.status).toBe(200);
      expect(Object.fromEntries(head.headers)).toEqual(Object.fromEntries(full.headers));
      expect(head.body).toBeNull();
    });
  });
});
