import { connect } from 'node:net';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { RequestTimeoutError } from './errors.js';
import { readBody } from './http.js';

describe('readBody', () => {
  it('fails with a 408 when the body stops arriving for idleMs, and reads a body that keeps coming', async () => {
    const outcomes: unknown[] = [];
    const server = createServer((request, response) => {
      readBody(request, 1000, 200).then(
        (body) => (outcomes.push(body?.toString()), response.end('ok')),
        (error: unknown) => (outcomes.push(error), response.end()),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const send = (parts: string[], gapMs: number) =>
      new Promise<void>((resolve) => {
        const socket = connect(port, '127.0.0.1', async () => {
          socket.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: ${parts.join('').length}\r\n\r\n`);
          for (const part of parts) {
            socket.write(part);
            await new Promise((wait) => setTimeout(wait, gapMs));
          }
        });
        socket.on('data', () => (socket.destroy(), resolve()));
        socket.on('close', () => resolve());
      });
    try {
      await send(['ab', 'cd', 'ef'], 100);
      expect(outcomes).toEqual(['abcdef']);
      const silent = new Promise<void>((resolve) => {
        const socket = connect(port, '127.0.0.1', () => socket.write('POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{'));
        socket.on('data', () => (socket.destroy(), resolve()));
      });
      await silent;
      expect(outcomes[1]).toBeInstanceOf(RequestTimeoutError);
      expect(outcomes[1]).toMatchObject({ status: 408 });
    } finally {
      server.close();
    }
  });
});
