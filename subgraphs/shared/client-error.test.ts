import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerClientErrors } from './client-error.js';

/** Sends raw bytes and reads the whole answer (the server closes the connection after it). */
function rawRequest(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(bytes));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
  });
}

function parse(answer: string): { status: number; headers: Record<string, string>; body: unknown } {
  const [head, body] = answer.split('\r\n\r\n');
  const [statusLine, ...lines] = head!.split('\r\n');
  const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine!.split(' ')[1]), headers, body: JSON.parse(body!) };
}

describe('answerClientErrors', () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer((_request, response) => response.end('handled'));
    answerClientErrors(server, (url) => (new URL(url, 'http://x').pathname.startsWith('/api/users/') ? ['GET', 'PATCH'] : []));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers a method the parser does not know with a 405 naming the path\'s methods, in the contract\'s body', async () => {
    const answer = parse(await rawRequest(port, 'FOO /api/users/@me/ HTTP/1.1\r\nHost: x\r\n\r\n'));
    expect(answer).toEqual({
      status: 405,
      headers: expect.objectContaining({ allow: 'GET, PATCH', 'content-type': 'application/json', connection: 'close' }),
      body: { type: 'invalid_request', code: 'method_not_allowed', detail: 'Method "FOO" not allowed.', attr: null },
    });
  });

  it('answers an unknown method on a path that is nothing with a 404', async () => {
    const answer = parse(await rawRequest(port, 'FOO /nothing HTTP/1.1\r\nHost: x\r\n\r\n'));
    expect(answer).toMatchObject({ status: 404, body: { code: 'not_found' } });
  });

  it('answers headers past the limit with a 431 and bytes that are not HTTP with a 400 parse_error', async () => {
    const huge = parse(await rawRequest(port, `GET /api/users/@me/ HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`));
    expect(huge).toMatchObject({ status: 431, body: { type: 'invalid_request', code: 'request_header_fields_too_large' } });
    const garbage = parse(await rawRequest(port, 'GET /api/users/@me/ HTTP/9\r\n\r\n'));
    expect(garbage).toMatchObject({ status: 400, body: { type: 'invalid_request', code: 'parse_error', detail: 'Malformed HTTP request.' } });
  });

  it('answers a target that is no URL with a 400, and keeps serving', async () => {
    const answer = parse(await rawRequest(port, 'FOO http://[ HTTP/1.1\r\nHost: x\r\n\r\n'));
    expect(answer).toMatchObject({ status: 400, body: { code: 'parse_error' } });
    expect(await (await fetch(`http://127.0.0.1:${port}/`)).text()).toBe('handled');
  });
});
