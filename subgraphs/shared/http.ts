import { isAscii, isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Request as FetchRequest } from '@whatwg-node/fetch';
import { contractError, MethodNotAllowedError, NotFoundError, RequestTimeoutError, retryAfterHeader, SERVER_ERROR_BODY, type AppError, type ErrorBody } from './errors.js';
import type { Logger } from './logger.js';

/** Whether bytes begin as gzip does (PostHog's capture takes a gzip body by them alone). */
export function isGzip(bytes: Uint8Array): boolean {
  return bytes[0] === 0x1f && bytes[1] === 0x8b;
}

/**
 * The text of a body read as UTF-8 (what is not UTF-8 becomes U+FFFD). ASCII, which most JSON is,
 * is copied byte for byte instead, with no decoding to do: faster to make and faster to parse, for
 * the same string (a 2 MB body, measured in test/bench/RESULTS.md).
 */
export function utf8Text(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

/** The text of a body that is UTF-8, or undefined when it is not. ASCII is UTF-8 without a second look. */
export function strictUtf8Text(bytes: Buffer): string | undefined {
  if (isAscii(bytes)) return bytes.toString('latin1');
  return isUtf8(bytes) ? bytes.toString('utf8') : undefined;
}

/** readBody's failure when the client's connection ends before its body does: nobody waits for an answer. */
export class RequestAbortedError extends Error {
  constructor() {
    super('request aborted by the client');
  }
}

/**
 * The whole body of a Node request, or null once it passes the limit (the rest is not kept). With
 * `idleMs`, a body none of which arrives for that long fails with a RequestTimeoutError; a
 * connection that ends in the middle fails with a RequestAbortedError.
 */
export function readBody(request: IncomingMessage, limit: number, idleMs?: number): Promise<Buffer | null> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > limit) {
    request.resume();
    return Promise.resolve(null);
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    if (idleMs) request.setTimeout(idleMs, () => reject(new RequestTimeoutError(idleMs / 1000)));
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) over = true;
      if (!over) chunks.push(chunk);
    });
    request.on('end', () => {
      if (idleMs) request.setTimeout(0);
      resolve(over ? null : Buffer.concat(chunks));
    });
    // The request stream fails only when its connection ends early (Node's `aborted`, ECONNRESET).
    request.on('error', () => reject(new RequestAbortedError()));
  });
}

/**
 * A client that goes away before its answer is written (in the middle of its body, or while it
 * waits) is routine: one debug line without a stack, never an error (a client could flood the log).
 * Handlers let a RequestAbortedError go unlogged: this line is its record.
 */
export function logAborts(log: Logger, request: IncomingMessage, response: ServerResponse): void {
  response.once('close', () => {
    if (!response.writableFinished) log.debug({ method: request.method, path: request.url?.split('?')[0] }, 'request aborted by the client');
  });
}

/** A Node request as a WHATWG Request, with its already-read body. */
export function toRequest(request: IncomingMessage, body: Buffer): ReadBodyRequest {
  const method = request.method ?? 'GET';
  return new ReadBodyRequest(publicUrl(request), method, request.headers as HeadersInit, method === 'GET' || method === 'HEAD' ? Buffer.alloc(0) : body);
}

/** A Node request to the router's /graphql as a WHATWG Request, with its already-read body. */
export function toGraphqlRequest(request: IncomingMessage, body: Buffer): ReadGraphqlRequest {
  const method = request.method ?? 'GET';
  const headers = method === 'POST' && !GRAPHQL_BODY_TYPE.test(request.headers['content-type'] ?? '') ? { ...request.headers, 'content-type': 'application/json' } : request.headers;
  return new ReadGraphqlRequest(publicUrl(request), method, headers as HeadersInit, body);
}

/**
 * The body types Yoga reads; any other POST body (none, `text/plain`, …) is read as JSON, as the
 * REST layer reads it: Yoga would answer 415 with no body, where a client needs the contract's
 * error (an unreadable body is a 400 `parse_error`).
 */
const GRAPHQL_BODY_TYPE = /^\s*application\/(json|graphql\+json|graphql|x-www-form-urlencoded)\s*(;|$)/i;

/**
 * A WHATWG Request over a body the listener has read. A handler that knows it takes the bytes as
 * they are (`readBytes`); any other reads them through the Request, which holds the same bytes
 * (a stream of them is made only for a reader of `body`). Like every Request this process makes
 * for itself, it is the Request of Yoga's and SOFA's fetch API (@whatwg-node's), which reads Node's
 * headers object where it is: Node's own Request copies the headers, and took many times as long
 * to make (test/bench/RESULTS.md).
 */
export class ReadBodyRequest extends FetchRequest {
  constructor(
    url: string,
    method: string,
    headers: HeadersInit,
    readonly readBytes: Buffer,
  ) {
    super(url, { method, headers, body: readBytes.length === 0 ? undefined : (readBytes as BodyInit) });
  }
}

/**
 * A GraphQL request over a body the listener has read and limited, with no stream: its body is
 * read by `text()`, `json()` or `arrayBuffer()` only, which are all Yoga's parsers use. Yoga wraps
 * any request that has a body in a byte-counting TransformStream and a new Request, for a limit
 * (25 MB) above the listener's; making and piping those streams showed up in a worker's profile
 * under distinct GraphQL queries (test/bench/RESULTS.md).
 */
export class ReadGraphqlRequest extends FetchRequest {
  constructor(
    url: string,
    method: string,
    headers: HeadersInit,
    readonly readBytes: Buffer,
  ) {
    super(url, { method, headers });
  }

  /** UTF-8 (the listener has checked it), a leading byte order mark kept, as Yoga's own Request keeps it. */
  override text(): Promise<string> {
    return Promise.resolve(utf8Text(this.readBytes));
  }

  override json(): Promise<unknown> {
    return this.text().then((text) => JSON.parse(text) as unknown);
  }

  override arrayBuffer(): Promise<ArrayBuffer> {
    const { buffer, byteOffset, byteLength } = this.readBytes;
    return Promise.resolve(buffer.slice(byteOffset, byteOffset + byteLength) as ArrayBuffer);
  }
}

/** What the ingest endpoint takes: events by POST, and the preflight of browsers that send them. */
export const INGEST_METHODS = ['POST', 'OPTIONS'];

/** The ingest endpoint's path (`{ingest_url}/batch/`), with or without the trailing slash. */
export function isBatchPath(path: string): boolean {
  return path === '/batch' || path === '/batch/';
}

/**
 * A request whose body the listener has read, for handlers that take megabytes: a WHATWG Request
 * would copy the body into a stream only for the handler to read it back.
 */
export interface ReadRequest {
  method: string;
  /** The URL the caller asked for. */
  url: string;
  header(name: string): string | undefined;
  body: Buffer;
}

export function readRequest(request: IncomingMessage, body: Buffer): ReadRequest {
  return {
    method: request.method ?? 'GET',
    url: publicUrl(request),
    header: (name) => {
      const value = request.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    body,
  };
}

/** Answer types whose body is written as it comes (a conversation's SSE, incremental delivery): the rest are whole. */
const STREAMED_TYPES = ['text/event-stream', 'multipart/mixed'];

/** Statuses that carry no body, and so no length of one. */
const BODILESS_STATUSES = new Set([204, 304]);

/**
 * Writes a WHATWG Response to a Node response. A whole answer (JSON, an asset) is written in one
 * `end()` with its length: reading it through a stream costs a worker for nothing. A streamed one
 * is written as it comes.
 */
export async function writeResponse(result: Response, response: ServerResponse): Promise<void> {
  const headers = nodeHeaders(result.headers);
  if (!hasBody(result)) {
    response.writeHead(result.status, headers).end();
    return;
  }
  if (isStreamed(result.headers.get('content-type'))) return writeStream(result.status, headers, result.body!, response);
  const bytes = await wholeBody(result);
  if (!BODILESS_STATUSES.has(result.status)) headers['content-length'] = String(bytes.byteLength);
  response.writeHead(result.status, headers).end(bytes);
}

/**
 * Whether a Response has a body, without making one: `body` makes a stream of a whole answer (a
 * Readable, a ReadableStream and a Proxy over them, a cost seen under distinct queries),
 * where @whatwg-node's Response (Yoga's, SOFA's) holds what it was made with.
 */
function hasBody(result: Response): boolean {
  const made = (result as { bodyInit?: unknown }).bodyInit;
  return made === undefined ? result.body !== null : made !== null;
}

function nodeHeaders(from: Headers): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  from.forEach((value, name) => {
    headers[name] = name === 'set-cookie' ? [...((headers[name] as string[] | undefined) ?? []), value] : value;
  });
  return headers;
}

function isStreamed(contentType: string | null): boolean {
  return contentType !== null && STREAMED_TYPES.some((type) => contentType.toLowerCase().startsWith(type));
}

/** The body's bytes, not copied: @whatwg-node's Response (Yoga's, SOFA's) answers with the Buffer it holds, Node's with an ArrayBuffer. */
async function wholeBody(result: Response): Promise<Buffer> {
  const body = await result.arrayBuffer();
  return Buffer.isBuffer(body) ? body : Buffer.from(body);
}

async function writeStream(status: number, headers: Record<string, string | string[]>, body: ReadableStream<Uint8Array>, response: ServerResponse): Promise<void> {
  response.writeHead(status, headers);
  // A client that goes away cancels the body: a stream (a conversation's SSE) stops following.
  const reader = body.getReader();
  const gone = () => void reader.cancel().catch(() => undefined);
  response.once('close', gone);
  try {
    for (let read = await reader.read(); !read.done; read = await reader.read()) response.write(read.value);
  } finally {
    response.off('close', gone);
  }
  response.end();
}


/**
 * The URL the caller asked for: its Host header names the origin (page links point there). A Host
 * that is no valid authority, or a target that is no path, falls back to `localhost` and `/`.
 */
function publicUrl(request: IncomingMessage): string {
  const target = request.url?.startsWith('/') ? request.url : '/';
  try {
    return new URL(target, `http://${request.headers.host ?? 'localhost'}`).toString();
  } catch {
    return new URL(target, 'http://localhost').toString();
  }
}

/** Answers with the contract's error body. */
export function writeErrorBody(response: ServerResponse, status: number, body: ErrorBody): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

export function writeAppError(response: ServerResponse, error: AppError): void {
  const { status, body } = contractError(error);
  for (const [name, value] of Object.entries(retryAfterHeader(error))) response.setHeader(name, value);
  writeErrorBody(response, status, body);
}

/** Methods that the fetch API cannot carry to a handler (a Request refuses them): listeners answer them. */
export const UNCARRIED_METHODS = new Set(['TRACE', 'TRACK', 'CONNECT']);

/** The refusal of a method a path does not take: a 405 with Allow naming the methods it takes, or a 404 where it takes none. */
export function methodRefusal(method: string, allowed: readonly string[]): { error: AppError; headers: Record<string, string> } {
  if (allowed.length === 0) return { error: new NotFoundError(), headers: {} };
  return { error: new MethodNotAllowedError(method), headers: { allow: allowed.join(', ') } };
}

/** The methods a request target takes on a listener that serves `/batch/`: ingestion's there, `others` elsewhere. */
export function methodsWithIngest(others: (url: string) => string[]): (url: string) => string[] {
  return (url) => (isBatchPath(new URL(url, 'http://listener').pathname) ? INGEST_METHODS : others(url));
}

/** Writes {@link methodRefusal} in the contract's body. */
export function writeMethodNotAllowed(response: ServerResponse, method: string, allowed: string[]): void {
  const { error, headers } = methodRefusal(method, allowed);
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  writeAppError(response, error);
}

/** The last resort of a request handler: a generic 500 (or the end of a response already begun). */
export function writeServerError(response: ServerResponse): void {
  if (response.headersSent) response.end();
  else writeErrorBody(response, 500, SERVER_ERROR_BODY);
}
