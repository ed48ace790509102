import { gunzip, inflate } from 'node:zlib';
import { promisify } from 'node:util';
import { ParseError, PayloadTooLargeError, ValidationError } from '../../subgraphs/shared/errors.js';
import { isGzip, utf8Text, type ReadRequest } from '../../subgraphs/shared/http.js';

const gunzipAsync = promisify(gunzip);
const inflateAsync = promisify(inflate);

/**
 * The JSON text a capture request carries, as PostHog's capture finds it. The transport encoding
 * (`Content-Encoding: gzip` or `deflate`) is undone first, whatever the content type says; what is
 * left is the JSON, gzip (`?compression=gzip-js`, or just gzip's magic bytes), or a form whose
 * `data` field holds either (plain or base64). A form-typed body that is JSON itself is read as
 * JSON: that is what `curl -d '{…}'` sends, and PostHog's Django capture read it so too.
 * Inflating stops at `limit` bytes, so a small body cannot expand into gigabytes (413). The JSON
 * itself is the ingestion subgraph's to read.
 */
export async function readIngestText(request: ReadRequest, limit: number): Promise<string> {
  let bytes = await decompress(request.body, contentEncoding(request), limit);
  if (isForm(request) && !isGzip(bytes) && !startsLikeJson(bytes)) bytes = formData(new URLSearchParams(bytes.toString('utf8')).get('data'));
  // `compression` only names what the magic bytes tell anyway; a payload already inflated has none.
  const text = utf8Text(await decompress(bytes, isGzip(bytes) ? 'gzip' : null, limit));
  // JSON has no raw control characters but whitespace. Refused here, they cannot grow six-fold as
  // `\u00XX` on the way to the subgraph: the payload crosses the graph at most twice its size.
  if (CONTROL_CHARACTER.test(text)) throw new ParseError('JSON parse error - a control character outside any string escape.');
  return text;
}

// eslint-disable-next-line no-control-regex -- finding control characters is the point
const CONTROL_CHARACTER = /[\x00-\x08\x0b\x0c\x0e-\x1f]/;

function isForm(request: ReadRequest): boolean {
  return (request.header('content-type') ?? '').trim().toLowerCase().startsWith('application/x-www-form-urlencoded');
}

function startsLikeJson(bytes: Buffer): boolean {
  const first = bytes.toString('latin1', 0, Math.min(bytes.length, 64)).trimStart()[0];
  return first === '{' || first === '[';
}

function formData(data: string | null): Buffer {
  if (data === null) throw new ValidationError('No data found. Send the events as a JSON body.', null, 'no_data');
  const trimmed = data.trim();
  // A '+' of base64 sent unencoded in a form reads as a space: PostHog's capture puts it back too.
  return trimmed.startsWith('{') || trimmed.startsWith('[') ? Buffer.from(trimmed) : Buffer.from(trimmed.replaceAll(' ', '+'), 'base64');
}

/** The body's one coding (`identity` entries aside, as HTTP allows them in a list). */
function contentEncoding(request: ReadRequest): 'gzip' | 'deflate' | null {
  const header = (request.header('content-encoding') ?? '').toLowerCase();
  const codings = header.split(',').map((coding) => coding.trim()).filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0) return null;
  if (codings.length === 1 && (codings[0] === 'gzip' || codings[0] === 'x-gzip')) return 'gzip';
  if (codings.length === 1 && codings[0] === 'deflate') return 'deflate';
  throw new ValidationError(`Content-Encoding "${header.trim()}" is not supported; send gzip or plain JSON.`, null, 'unsupported_encoding');
}

async function decompress(bytes: Buffer, encoding: 'gzip' | 'deflate' | null, limit: number): Promise<Buffer> {
  if (encoding === null) return bytes;
  try {
    return await (encoding === 'gzip' ? gunzipAsync : inflateAsync)(bytes, { maxOutputLength: limit });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw new PayloadTooLargeError(limit);
    throw new ParseError(`Malformed request data: ${encoding} decoding failed (${(error as Error).message}).`);
  }
}
