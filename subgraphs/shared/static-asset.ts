import { createHash } from 'node:crypto';
import { promisify } from 'node:util';
import { brotliCompress, constants, gzip } from 'node:zlib';

type Encoding = 'br' | 'gzip';

const COMPRESS: Record<Encoding, (bytes: Uint8Array) => Promise<Buffer>> = {
  // Quality 9, not 11: 11 takes many times as long on GraphiQL's 5 MB script for a little less size,
  // and the first visitor waits for it. Both run on libuv's pool, not on the event loop.
  br: (bytes) => promisify(brotliCompress)(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 9, [constants.BROTLI_PARAM_SIZE_HINT]: bytes.length } }),
  gzip: (bytes) => promisify(gzip)(bytes, { level: 9 }),
};

/** A year: the longest lifetime caches honour, for URLs whose content never changes. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Kept, but asked about each time (one 304 while the ETag matches). */
const REVALIDATE = 'no-cache';

/**
 * A file held in memory and served as browsers and caches want it: a strong ETag (the content's
 * hash) with 304s, br or gzip as `Accept-Encoding` allows (each computed at its first request and
 * kept), `Vary: Accept-Encoding`, and HEAD.
 *
 * Caching: a URL made by {@link StaticAsset.url} carries the content's hash, so its answer is
 * immutable for a year and a page reload costs no request for it; the same path without that
 * version (or with an outdated one, from a page cached before an upgrade) answers `no-cache`, so
 * a cache revalidates it once per use instead of keeping a stale copy.
 */
export class StaticAsset {
  /** The content's version: the first 20 hex digits of its SHA-256. */
  readonly version: string;
  readonly bytes: Buffer;
  readonly #encoded = new Map<Encoding, Promise<Buffer>>();

  constructor(
    content: string | Uint8Array,
    /** The Content-Type, with its charset for text. */
    readonly type: string,
  ) {
    this.bytes = Buffer.from(content);
    this.version = createHash('sha256').update(this.bytes).digest('hex').slice(0, 20);
  }

  /** `path` with the content's version: the URL to link, cached for good by browsers. */
  url(path: string): string {
    return `${path}?v=${this.version}`;
  }

  /** The answer to a GET or HEAD of this asset. */
  async respond(request: Request): Promise<Response> {
    const encoding = negotiate(request.headers.get('accept-encoding'));
    const body = encoding ? await this.encoded(encoding) : this.bytes;
    // An encoding that saves nothing (a PNG) is not used: identity, under the identity ETag.
    const used = body === this.bytes ? undefined : encoding;
    const etag = `"${this.version}${used ? `-${used}` : ''}"`;
    const headers: Record<string, string> = {
      etag,
      'cache-control': new URL(request.url).searchParams.get('v') === this.version ? IMMUTABLE : REVALIDATE,
      vary: 'Accept-Encoding',
    };
    if (matches(request.headers.get('if-none-match'), etag)) return new Response(null, { status: 304, headers });
    Object.assign(headers, { 'content-type': this.type, 'content-length': String(body.length) }, used ? { 'content-encoding': used } : {});
    return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), { headers });
  }

  /** The content in `encoding`, or the plain bytes when that is no smaller. */
  private encoded(encoding: Encoding): Promise<Buffer> {
    let pending = this.#encoded.get(encoding);
    if (!pending) {
      pending = COMPRESS[encoding](this.bytes).then((compressed) => (compressed.length < this.bytes.length ? compressed : this.bytes));
      this.#encoded.set(encoding, pending);
    }
    return pending;
  }
}

/** The preferred encoding the client accepts (br, then gzip), honouring `q=0` and `*`. */
function negotiate(header: string | null): Encoding | undefined {
  const weights = new Map<string, number>();
  for (const item of (header ?? '').split(',')) {
    const [name, ...params] = item.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((param) => /^\s*q=([\d.]+)\s*$/.exec(param)?.[1]).find((value) => value !== undefined);
    weights.set(name, q === undefined ? 1 : Number(q));
  }
  return (['br', 'gzip'] as const).find((encoding) => (weights.get(encoding) ?? weights.get('*') ?? 0) > 0);
}

/** If-None-Match's weak comparison: `*`, or one of its tags equal to `etag` once `W/` is dropped. */
function matches(header: string | null, etag: string): boolean {
  if (!header) return false;
  return header.split(',').some((tag) => {
    const trimmed = tag.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === etag;
  });
}
