import { connect } from 'node:net';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { RequestTimeoutError } from './errors.js';
import { Response as FetchResponse } from '@whatwg-node/fetch';
import { readBody, ReadBodyRequest, ReadGraphqlRequest, strictUtf8Text, utf8Text, writeResponse } from './http.js';

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

describe('utf8Text', () => {
  it('reads ASCII, other UTF-8 and bytes that are not UTF-8 exactly as a UTF-8 decoding does', () => {
    for (const bytes of [Buffer.from('{"a": "plain"}'), Buffer.from('{"a": "é 😀 ü"}'), Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), Buffer.alloc(0)]) {
      expect(utf8Text(bytes)).toBe(bytes.toString('utf8'));
    }
  });
});

describe('strictUtf8Text', () => {
  it('reads ASCII and other UTF-8 as a UTF-8 decoding does, and refuses bytes that are not UTF-8', () => {
    for (const bytes of [Buffer.from('{"a": "plain"}'), Buffer.from('{"a": "é 😀 ü"}'), Buffer.alloc(0)]) {
      expect(strictUtf8Text(bytes)).toBe(bytes.toString('utf8'));
    }
    expect(strictUtf8Text(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]))).toBeUndefined();
    expect(strictUtf8Text(Buffer.from([0x7b, 0xc3]))).toBeUndefined();
  });
});

describe('ReadBodyRequest', () => {
  it('hands its bytes over as they are, and as a stream to readers that read one', async () => {
    const bytes = Buffer.from('{"name": "ünïcode"}');
    const request = new ReadBodyRequest('http://test/api/', 'POST', new Headers({ 'content-type': 'application/json' }), bytes);
    expect(request.readBytes).toBe(bytes);
    expect(await request.json()).toEqual({ name: 'ünïcode' });
    expect(new ReadBodyRequest('http://test/api/', 'GET', new Headers(), Buffer.alloc(0)).body).toBeNull();
  });
});

describe('ReadGraphqlRequest', () => {
  const bodies = ['{"query": "{ me { email } }", "variables": {"name": "ünïcode"}}', '\ufeff{"query": "{ me { email } }"}', '{"query": ', '', '"text"'];
  it.each(bodies)('reads %j as its text, without a stream', async (text) => {
    const bytes = Buffer.from(text);
    const request = () => new ReadGraphqlRequest('http://test/graphql', 'POST', new Headers({ 'content-type': 'application/json' }), bytes);
    expect(request().body).toBeNull();
    expect(await request().text()).toBe(text);
    expect(Buffer.from(await request().arrayBuffer())).toEqual(bytes);
    const parsed = (read: () => Promise<unknown>) => read().then((value) => ({ value }), (error: Error) => ({ error: `${error.name}: ${error.message}` }));
    expect(await parsed(() => request().json())).toEqual(await parsed(async () => JSON.parse(text)));
  });
});

describe('writeResponse', () => {
  const sse = () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(Buffer.from('event: a\ndata: 1\n\n'));
          controller.enqueue(Buffer.from('event: b\ndata: 2\n\n'));
          controller.close();
        },
      }),
      { headers: { 'content-type': 'text/event-stream' } },
    );
  const answers: Record<string, () => Response> = {
    yoga: () => new FetchResponse('{"data": {"name": "ünïcode"}}', { status: 201, headers: { 'content-type': 'application/json' } }) as unknown as Response,
    node: () => new Response(new Uint8Array([1, 2, 3]), { headers: { 'content-type': 'application/octet-stream' } }),
    cookies: () => new Response('{}', { headers: [['set-cookie', 'a=1'], ['set-cookie', 'b=2'], ['content-type', 'application/json']] }),
    empty: () => new Response(null, { status: 204 }),
    sse,
  };

  async function served<T>(use: (url: string) => Promise<T>): Promise<T> {
    const server = createServer((request, response) => void writeResponse(answers[request.url!.slice(1)]!(), response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      return await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    } finally {
      server.close();
    }
  }

  it('writes a whole answer in one piece with its length, whichever Response made it', async () => {
    await served(async (url) => {
      const yoga = await fetch(`${url}/yoga`);
      expect([yoga.status, yoga.headers.get('content-length'), yoga.headers.get('transfer-encoding')]).toEqual([201, String(Buffer.byteLength('{"data": {"name": "ünïcode"}}')), null]);
      expect(await yoga.json()).toEqual({ data: { name: 'ünïcode' } });
      const node = await fetch(`${url}/node`);
      expect([node.headers.get('content-length'), [...new Uint8Array(await node.arrayBuffer())]]).toEqual(['3', [1, 2, 3]]);
      expect((await fetch(`${url}/cookies`)).headers.getSetCookie()).toEqual(['a=1', 'b=2']);
      const empty = await fetch(`${url}/empty`);
      expect([empty.status, empty.headers.get('content-length'), await empty.text()]).toEqual([204, null, '']);
    });
  });

  it('writes an event stream as it comes, without a length', async () => {
    await served(async (url) => {
      const stream = await fetch(`${url}/sse`);
      expect([stream.headers.get('content-length'), stream.headers.get('transfer-encoding')]).toEqual([null, 'chunked']);
      expect(await stream.text()).toBe('event: a\ndata: 1\n\nevent: b\ndata: 2\n\n');
    });
  });
});
