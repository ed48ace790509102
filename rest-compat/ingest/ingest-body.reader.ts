import { gunzip, inflate } from 'node:zlib';
import { promisify } from 'node:util';
import { ParseError, PayloadTooLargeError, ValidationError } from '../../subgraphs/shared/errors.js';
import type { ReadRequest } from '../../subgraphs/shared/http.js';

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);
const GZIP_MAGIC = [0x1f, 0x8b];

/**
 * The JSON text a capture request carries, as PostHog's capture finds it: the body, gzipped
 * (`Content-Encoding: gzip`, `?compression=gzip-js`, or just gzip's magic bytes) or deflated, or a
 * form whose `data` field holds the JSON (plain or base64). Inflating stops at `limit` bytes, so a
 * small body cannot expand into gigabytes (413). The JSON itself is the ingestion subgraph's to read.
 */
export async function readIngestText(request: ReadRequest, limit: number): Promise<string> {
  let bytes: Buffer = request.body;
  let compression = new URL(request.url).searchParams.get('compression');
  if ((request.header('content-type') ?? '').startsWith('application/x-www-form-urlencoded')) {
    const form = new URLSearchParams(bytes.toString('utf8'));
    compression = form.get('compression') ?? compression;
    bytes = formData(form.get('data'));
  }
  return (await decompress(bytes, contentEncoding(request, compression), limit)).toString('utf8');
}

function formData(data: string | null): Buffer {
  if (data === null) throw new ValidationError('No data found. Send the events as a JSON body.', null, 'no_data');
  const trimmed = data.trim();
  // A '+' of base64 sent unencoded in a form reads as a space: PostHog's capture puts it back too.
  return trimmed.startsWith('{') || trimmed.startsWith('[') ? Buffer.from(trimmed) : Buffer.from(trimmed.replaceAll(' ', '+'), 'base64');
}

function contentEncoding(request: ReadRequest, compression: string | null): 'gzip' | 'deflate' | null {
  const header = (request.header('content-encoding') ?? '').trim().toLowerCase();
  if (header === 'gzip' || header === 'x-gzip' || compression === 'gzip' || compression === 'gzip-js') return 'gzip';
  if (header === 'deflate') return 'deflate';
  if (header !== '' && header !== 'identity') throw new ValidationError(`Content-Encoding "${header}" is not supported; send gzip or plain JSON.`, null, 'unsupported_encoding');
  return null;
}

async function decompress(bytes: Buffer, encoding: 'gzip' | 'deflate' | null, limit: number): Promise<Buffer> {
  const gzipped = encoding === 'gzip' || (bytes[0] === GZIP_MAGIC[0] && bytes[1] === GZIP_MAGIC[1]);
  if (!gzipped && encoding !== 'deflate') return bytes;
  try {
    return await (gzipped ? gunzipAsync : inflateAsync)(bytes, { maxOutputLength: limit });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new PayloadTooLargeError(limit);
    throw new ParseError(`Malformed request data: ${gzipped ? 'gzip' : 'deflate'} decoding failed (${(error as Error).message}).`);
  }
}
