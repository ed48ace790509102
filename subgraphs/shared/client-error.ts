import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { contractError, NotFoundError, ParseError, type AppError, type ErrorBody } from './errors.js';
import { methodRefusal } from './http.js';

/** The methods a request line's target takes ([] when it names nothing), as the listener's routes say. */
export type AllowedMethods = (url: string) => string[];

/** `METHOD target HTTP/x.y`: a method is any token (RFC 9110), which is why the parser can refuse one it does not know. */
const REQUEST_LINE = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+) (\S+) HTTP\/\d\.\d\r?\n/;

/**
 * Requests Node's HTTP parser refuses before a handler sees them answer the contract's JSON body
 * rather than Node's bare `400 Bad Request`: a method it does not know (`FOO`) is a 405 naming the
 * methods of the path (a 404 where the path is nothing), headers past the limit a 431, a request
 * that took too long to arrive a 408, anything else that is not HTTP a 400 parse_error.
 */
export function answerClientErrors(server: Server, allowed: AllowedMethods): void {
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: Buffer }, socket: Duplex) => {
    // A client that went away (ECONNRESET) or a socket already closed: nobody to answer.
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    socket.end(rawResponse(answerFor(error, allowed)));
  });
}

interface Answer {
  status: number;
  reason: string;
  body: ErrorBody;
  headers?: Record<string, string>;
}

function answerFor(error: NodeJS.ErrnoException & { rawPacket?: Buffer }, allowed: AllowedMethods): Answer {
  switch (error.code) {
    case 'HPE_INVALID_METHOD':
      return unknownMethod(error.rawPacket, allowed);
    case 'HPE_HEADER_OVERFLOW':
      return plain(431, 'Request Header Fields Too Large', { type: 'invalid_request', code: 'request_header_fields_too_large', detail: 'Request headers are too large.', attr: null });
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return plain(408, 'Request Timeout', { type: 'invalid_request', code: 'request_timeout', detail: 'The request took too long to arrive.', attr: null });
    default:
      return fromAppError(new ParseError('Malformed HTTP request.'), 'Bad Request');
  }
}

function unknownMethod(raw: Buffer | undefined, allowed: AllowedMethods): Answer {
  const line = REQUEST_LINE.exec(raw?.subarray(0, 8192).toString('latin1') ?? '');
  if (!line) return fromAppError(new ParseError('Malformed HTTP request.'), 'Bad Request');
  let methods: string[];
  try {
    methods = allowed(line[2]!);
  } catch {
    // A target that is no URL at all (`http://[`): nothing the parser would have let through either.
    return fromAppError(new ParseError('Malformed HTTP request.'), 'Bad Request');
  }
  const { error, headers } = methodRefusal(line[1]!, methods);
  return { ...fromAppError(error, error instanceof NotFoundError ? 'Not Found' : 'Method Not Allowed'), headers };
}

function fromAppError(error: AppError, reason: string): Answer {
  const { status, body } = contractError(error);
  return plain(status, reason, body);
}

function plain(status: number, reason: string, body: ErrorBody): Answer {
  return { status, reason, body };
}

/** The whole response, written on the socket itself: the parser gave up on it, so there is no ServerResponse. */
function rawResponse({ status, reason, body, headers = {} }: Answer): string {
  const json = JSON.stringify(body);
  const lines = [`HTTP/1.1 ${status} ${reason}`, 'content-type: application/json', `content-length: ${Buffer.byteLength(json)}`, 'connection: close'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n${json}`;
}
