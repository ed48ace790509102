import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { freePort, startPlatform, type Platform } from './kit/process.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { TEST_SECRET_KEY } from './kit/stack.js';
import { wsClient } from './kit/ws.js';

const MAX_BODY_BYTES = 64 * 1024;

interface LogLine {
  level: number;
  msg?: string;
  method?: string;
  path?: string;
  err?: { stack?: string };
  stack?: string;
}

/**
 * What clients can make the platform log: a client that goes away is a debug line without a
 * stack (a client could otherwise flood an error log), a graphql-ws message over the limit closes
 * its connection with 1009 and a reason, and nothing ever prints a raw stack on stderr.
 */
describe('logs of client faults', () => {
  let platform: Platform;
  let owner: Tenant;

  beforeAll(async () => {
    platform = await startPlatform({
      DATABASE_URL: inject('databaseUrl'),
      SECRET_KEY: TEST_SECRET_KEY,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'analytics-logs-')),
      PORT: String(await freePort()),
      LOG_LEVEL: 'debug',
      MAX_BODY_BYTES: String(MAX_BODY_BYTES),
    });
    owner = await seedTenant(inject('databaseUrl'), 'logs');
  });

  afterAll(async () => {
    platform?.child.kill('SIGTERM');
    await platform?.exited;
  });

  it('logs a request aborted in its body or while it waits as one debug line without a stack', async () => {
    const before = platform.stderr.length;
    const key = owner.personal_api_key;
    await send(platform.url, 'POST', '/graphql', '{"query":"{ __typ', { announce: 1000 });
    await send(platform.url, 'POST', '/api/organizations/', '{"name":', { announce: 1000, key });
    await send(platform.url, 'POST', '/batch/', '{"api_key":', { announce: 1000 });
    // The whole body sent, gone before the answer (a database query away: the close is seen first).
    await send(platform.url, 'GET', `/api/environments/${owner.environment_id}/customer_profile_configs/`, '', { key });
    await send(platform.url, 'POST', '/graphql', JSON.stringify({ query: `{ customer_profile_configs(project_id: ${owner.environment_id}) { count } }` }), { key });
    await new Promise((resolve) => setTimeout(resolve, 500));

    const lines = logLines(platform.stderr.slice(before));
    const aborted = lines.filter((line) => line.msg === 'request aborted by the client');
    // A quick answer may be written before the close is seen (then nothing was aborted): the GraphQL one is not counted on.
    expect(aborted.map((line) => `${line.method} ${line.path}`)).toEqual(
      expect.arrayContaining(['POST /graphql', 'POST /api/organizations/', 'POST /batch/', `GET /api/environments/${owner.environment_id}/customer_profile_configs/`]),
    );
    for (const line of aborted) {
      expect(line.level).toBe(20);
      expect(line.err).toBeUndefined();
      expect(line.stack).toBeUndefined();
    }
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
  });

  it('closes a graphql-ws connection whose message is over the limit with 1009 and a reason, printing nothing raw', async () => {
    const before = platform.stderr.length;
    const socket = new WebSocket(`${platform.url.replace('http', 'ws')}/graphql`, 'graphql-transport-ws');
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { padding: 'x'.repeat(MAX_BODY_BYTES) } }));
    const [code, reason] = await new Promise<[number, string]>((resolve) => socket.once('close', (closeCode, closeReason) => resolve([closeCode, closeReason.toString()])));
    expect(code).toBe(1009);
    expect(reason).toBe('Message too big');

    // A graphql-ws client takes 1009 as fatal: its subscription fails with the close event, no retries.
    const client = wsClient(`${platform.url.replace('http', 'ws')}/graphql`, owner.personal_api_key);
    const failure = await new Promise<unknown>((resolve) => {
      client.subscribe({ query: `subscription { __typename } # ${'x'.repeat(MAX_BODY_BYTES)}` }, { next: () => undefined, error: resolve, complete: () => resolve(undefined) });
    });
    await client.dispose();
    expect(failure).toMatchObject({ code: 1009, reason: 'Message too big' });

    await new Promise((resolve) => setTimeout(resolve, 300));
    const lines = logLines(platform.stderr.slice(before));
    expect(lines.filter((line) => line.msg === 'websocket closed for a protocol error by the client').length).toBeGreaterThanOrEqual(2);
    expect(lines.filter((line) => line.level >= 50)).toEqual([]);
  });

  it('writes only JSON log lines on stderr: no raw stack, no console output', () => {
    const text = platform.stderr.join('');
    expect(text).not.toMatch(/^\s+at /m);
    expect(text.split('\n').filter((line) => line !== '' && !line.startsWith('{'))).toEqual([]);
  });
});

/** Sends a request by hand and closes the connection at once: `announce` claims more body than is sent. */
async function send(url: string, method: string, path: string, body: string, options: { announce?: number; key?: string }): Promise<void> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const headers = [`${method} ${path} HTTP/1.1`, `host: ${hostname}:${port}`, 'content-type: application/json', `content-length: ${options.announce ?? Buffer.byteLength(body)}`];
  if (options.key) headers.push(`authorization: Bearer ${options.key}`);
  socket.write(`${headers.join('\r\n')}\r\n\r\n${body}`);
  // Mid-body: let the server start reading first.
  if (options.announce) await new Promise((resolve) => setTimeout(resolve, 100));
  socket.destroy();
  await new Promise((resolve) => setTimeout(resolve, 100));
}

/** The JSON lines among the chunks (a line cut at the first chunk's edge is left out). */
function logLines(chunks: string[]): LogLine[] {
  return chunks
    .join('')
    .split('\n')
    .flatMap((line) => {
      try {
        return [JSON.parse(line) as LogLine];
      } catch {
        return [];
      }
    });
}
