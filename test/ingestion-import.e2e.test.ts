import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sql } from './kit/db.js';
import { generateEvents } from './kit/events.js';
import { api } from './kit/http.js';
import { applyProfiles, daysAgo, eventCount } from './kit/ingest.js';
import { BUILD_DIR, runCli } from './kit/process.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

const CLI = `${BUILD_DIR}/router/process/cli/import/import.cli.js`;
let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl'), ingestListener: true });
});
afterAll(() => stack?.stop());

/** A JSON-lines file of `count` exported events (and any extra lines), in a directory of its own. */
function exportFile(count: number, extra: string[] = [], options: { gzip?: boolean; seed?: number } = {}): { file: string; uuids: string[] } {
  const events = [...generateEvents(count, { seed: options.seed ?? 11 })];
  const text = [...events.map((event) => JSON.stringify(event)), ...extra].join('\n') + '\n';
  const file = join(mkdtempSync(join(tmpdir(), 'analytics-import-')), options.gzip ? 'events.jsonl.gz' : 'events.jsonl');
  writeFileSync(file, options.gzip ? gzipSync(text) : text);
  return { file, uuids: events.map((event) => event.uuid!) };
}

const importCli = (file: string, token: string, host = stack.ingestUrl, extra: string[] = []) =>
  runCli(CLI, ['--file', file, '--token', token, '--host', host, '--batch-size', '200', ...extra], { HOME: tmpdir() });

const rejects = (file: string) =>
  readFileSync(`${file}.rejects.jsonl`, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { line: number; reason: string; text: string });

async function storedUuids(owner: Tenant): Promise<string[]> {
  const rows = await sql<{ uuid: string }>(inject('databaseUrl'), 'select uuid from ingestion.events where environment_id = $1', [owner.environment_id]);
  return rows.map((row) => row.uuid);
}

describe('npm run import', () => {
  it('imports a PostHog export (gzipped), with historical_migration, showing progress, and writes what it cannot send to the rejects file', async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'import');
    const exported = { uuid: crypto.randomUUID(), event: 'exported', distinct_id: 'e', timestamp: '2025-03-01 10:00:00.123456', team_id: 99, person_id: 'x', properties: '{"plan": "pro"}', set: { email: 'e@x' }, elements_chain: 'a:nth-child="1"' };
    const { file, uuids } = exportFile(1000, ['not json', '{"event": "no-id", "timestamp": "2025-01-01T00:00:00Z"}', JSON.stringify(exported), JSON.stringify({ event: 'recent', distinct_id: 'r', timestamp: new Date().toISOString() })], { gzip: true });
    const { code, stdout, stderr } = await importCli(file, owner.project_api_key);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ lines: 1004, sent: 1001, rejected: 3, resumed_from_line: 0, stopped: false });
    expect(stderr).toMatch(/\[#+\] 100% · 1,001 events acknowledged · 0 awaiting acknowledgement · [\d,]+ events\/s · 3 rejected/);
    expect(rejects(file).map((reject) => [reject.line, reject.reason.split(':')[0]])).toEqual([
      [1001, 'not JSON'],
      [1002, 'no distinct_id'],
      [1004, 'timestamp less than 48 hours old'],
    ]);
    expect((await storedUuids(owner)).sort()).toEqual([...uuids, exported.uuid].sort());
    const [row] = await sql<{ properties: Record<string, unknown>; timestamp: Date }>(inject('databaseUrl'), 'select properties, timestamp from ingestion.events where uuid = $1', [exported.uuid]);
    expect(row!.properties).toEqual({ plan: 'pro', $elements_chain: 'a:nth-child="1"', $set: { email: 'e@x' } });
    expect(row!.timestamp.toISOString()).toBe('2025-03-01T10:00:00.123Z');
  });

  it("rejects the lines the server refuses, with the server's reason, and stores the rest of their batch", async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'import');
    const tooLong = JSON.stringify({ event: 'x', distinct_id: 'd'.repeat(300), timestamp: daysAgo(), uuid: crypto.randomUUID() });
    const badUuid = JSON.stringify({ event: 'x', distinct_id: 'd', timestamp: daysAgo(), uuid: 'not-a-uuid' });
    const { file } = exportFile(100, [tooLong, badUuid]);
    const { code, stdout } = await importCli(file, owner.project_api_key);
    expect(code).toBe(0);
    expect(JSON.parse(stdout)).toMatchObject({ sent: 100, rejected: 2 });
    expect(rejects(file)).toEqual([
      { line: 101, reason: expect.stringMatching(/^max_length: Ensure this field has no more than 200 characters/), text: tooLong },
      { line: 102, reason: 'invalid_input: Must be a valid UUID.', text: badUuid },
    ]);
    expect(await eventCount(inject('databaseUrl'), owner.environment_id)).toBe(100);
  });

  it('retries through network errors and 5xx answers with backoff, storing every event once', async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'import');
    const { file, uuids } = exportFile(600);
    const proxy = await flakyProxy(stack.ingestUrl, ['drop', 503, 'drop']);
    try {
      const { code, stderr } = await importCli(file, owner.project_api_key, proxy.url, ['--concurrency', '1']);
      expect(code).toBe(0);
      expect(stderr).toMatch(/retrying: \S/);
      expect(proxy.refused).toBe(3);
    } finally {
      proxy.server.close();
    }
    const stored = await storedUuids(owner);
    expect(stored.sort()).toEqual([...uuids].sort());
  });

  it('shows what the platform acknowledged, not what was read: through an outage the bar waits at the checkpoint', async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'import');
    const { file, uuids } = exportFile(2000);
    let outage = true;
    const proxy = await flakyProxy(stack.ingestUrl, [], () => (outage ? 503 : undefined));
    try {
      const child = spawn(process.execPath, [CLI, '--file', file, '--token', owner.project_api_key, '--host', proxy.url, '--batch-size', '200', '--retry-for-seconds', '120'], { env: { PATH: process.env.PATH ?? '', HOME: tmpdir() }, stdio: ['ignore', 'pipe', 'pipe'] });
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
      // Every line is read in time (the file fits in what reading may run ahead; the retries may
      // begin before the reader is through) and nothing is stored meanwhile.
      await waitFor(() => / · 2,000 awaiting acknowledgement · [^\n]* · retrying\n/.test(stderr));
      const during = stderr.split('\n').filter((line) => line.endsWith(' · retrying'));
      for (const line of during) expect(line).toMatch(/^\[\.+\] {3}0% · 0 events acknowledged · [\d,]+ awaiting acknowledgement · 0 events\/s · 0 rejected · retrying$/);
      expect(during.at(-1)).toContain(' · 2,000 awaiting acknowledgement · ');
      outage = false;
      expect(await exited).toBe(0);
      expect(stderr).toMatch(/\[#+\] 100% · 2,000 events acknowledged · 0 awaiting acknowledgement · [\d,]+ events\/s · 0 rejected\n/);
    } finally {
      proxy.server.close();
    }
    expect((await storedUuids(owner)).sort()).toEqual([...uuids].sort());
  }, 90_000);

  it('splits a batch the server keeps answering 500 for, down to the event at fault, and rejects it', async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'import');
    const poison = JSON.stringify({ event: 'poison', distinct_id: 'p', timestamp: daysAgo(), uuid: crypto.randomUUID() });
    const { file } = exportFile(60, [poison]);
    const proxy = await flakyProxy(stack.ingestUrl, [], (body) => (body.includes('"poison"') ? 500 : undefined));
    try {
      const { code, stdout } = await importCli(file, owner.project_api_key, proxy.url, ['--concurrency', '1']);
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toMatchObject({ sent: 60, rejected: 1 });
    } finally {
      proxy.server.close();
    }
    expect(rejects(file)).toEqual([{ line: 61, reason: 'unavailable: try later', text: poison }]);
    expect(await eventCount(inject('databaseUrl'), owner.environment_id)).toBe(60);
  });

  it('stops for a refused key (exit 1), a file it cannot read, and a usage mistake (exit 2)', async () => {
    const { file } = exportFile(10);
    const refused = await importCli(file, 'phc_nobodyHasThisKey00000000000000000000000000');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/import stopped: the server refused the project API key/);
    expect((await importCli('/nonexistent.jsonl', 'phc_x')).code).toBe(1);
    const usage = await runCli(CLI, ['--token', 'phc_x'], {});
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--file is required\nusage: npm run import/);
    expect((await runCli(CLI, ['--file', file, '--token', 'phx_personal'], {})).code).toBe(2);
    expect(await runCli(CLI, ['--help'], {})).toMatchObject({ code: 0, stdout: expect.stringMatching(/^usage: npm run import/) });
  });

  it('stops (exit 1) when a batch is refused while later ones are stored, instead of waiting for it forever', async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'import');
    // The refusal comes late: by then the batches behind it (16 at most) are all stored.
    const { file } = exportFile(80);
    const proxy = await flakyProxy(stack.ingestUrl, [{ status: 403, delayMs: 5000 }]);
    try {
      const { code, stdout, stderr } = await importCli(file, owner.project_api_key, proxy.url, ['--batch-size', '1', '--concurrency', '2']);
      expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
      expect(stderr).toMatch(/import stopped: the server refused the project API key/);
    } finally {
      proxy.server.close();
    }
    expect(JSON.parse(readFileSync(`${file}.checkpoint.json`, 'utf8'))).toMatchObject({ line: 0, sent: 0 });
  });

  it("keeps each person's events in file order with several senders, so the last $set wins", async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'import');
    const lines = Array.from({ length: 240 }, (_, step) => {
      // Big batches and small ones, and other people's events, so that batches finish out of order.
      const distinct_id = step % 3 === 0 ? 'ordered' : `other-${step % 17}`;
      const pad = step % 21 === 0 ? 'x'.repeat(300_000) : '';
      return JSON.stringify({ event: 'step', distinct_id, timestamp: daysAgo(3, -step), uuid: crypto.randomUUID(), properties: { $set: { step }, pad } });
    });
    const { file } = exportFile(0, lines);
    const { code } = await importCli(file, owner.project_api_key, stack.ingestUrl, ['--batch-size', '5', '--concurrency', '4']);
    expect(code).toBe(0);
    await applyProfiles(stack);
    const { body } = await api(stack.url, 'GET', `/api/environments/${owner.environment_id}/persons/?distinct_id=ordered`, { key: owner.personal_api_key });
    expect(body.results[0].properties.step).toBe(237);
  });

  it('sends a batch of many refused lines a logarithmic number of times, not once a line', async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'import');
    const bad = Array.from({ length: 128 }, () => JSON.stringify({ event: 'x', distinct_id: 'd', timestamp: daysAgo(), uuid: 'not-a-uuid' }));
    const { file } = exportFile(0, bad);
    const proxy = await flakyProxy(stack.ingestUrl, []);
    try {
      const { code, stdout } = await importCli(file, owner.project_api_key, proxy.url);
      expect(code).toBe(0);
      expect(JSON.parse(stdout)).toMatchObject({ sent: 0, rejected: 128 });
    } finally {
      proxy.server.close();
    }
    expect(proxy.requests).toBe(128);
    // Once a line each would send every line 64 times on average; halves send each about log2(128) = 7 times.
    expect(proxy.bytes / (128 * bad[0]!.length)).toBeLessThan(12);
  });

  it('resumes from its checkpoint after being killed, storing every event once', async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'import');
    const { file, uuids } = exportFile(20_000);
    const child = spawn(process.execPath, [CLI, '--file', file, '--token', owner.project_api_key, '--host', stack.ingestUrl, '--batch-size', '50', '--concurrency', '1'], {
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    await waitFor(() => existsSync(`${file}.checkpoint.json`) && JSON.parse(readFileSync(`${file}.checkpoint.json`, 'utf8')).line >= 500);
    child.kill('SIGKILL');
    await exited;
    const checkpoint = JSON.parse(readFileSync(`${file}.checkpoint.json`, 'utf8')) as { line: number };
    expect(checkpoint.line).toBeLessThan(20_000);

    const resumed = await importCli(file, owner.project_api_key);
    expect(resumed.code).toBe(0);
    expect(resumed.stderr).toContain(`resuming after line ${checkpoint.line}`);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ resumed_from_line: checkpoint.line, sent: 20_000, rejected: 0 });
    const stored = await storedUuids(owner);
    expect(stored).toHaveLength(20_000);
    expect(new Set(stored)).toEqual(new Set(uuids));
  });

  it('refuses a checkpoint of another file', async () => {
    const { file } = exportFile(5);
    writeFileSync(`${file}.checkpoint.json`, JSON.stringify({ file: '/elsewhere.jsonl', size: 1, line: 3, sent: 3, rejected: 0, rejects_bytes: 0 }));
    const { code, stderr } = await importCli(file, 'phc_x');
    expect(code).toBe(1);
    expect(stderr).toMatch(/belongs to another file/);
  });
});

/** How the proxy fails a request: cut the connection, or answer a status (after a delay). */
type Failure = 'drop' | number | { status: number; delayMs: number };

/**
 * Forwards to `target`, but first fails requests as listed, and then those whose body `failing`
 * answers a status for; counts the requests and their bytes.
 */
async function flakyProxy(target: string, failures: Failure[], failing: (body: string) => number | undefined = () => undefined): Promise<{ server: Server; url: string; refused: number; requests: number; bytes: number }> {
  const state = { refused: 0, requests: 0, bytes: 0 };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      state.requests++;
      state.bytes += body.length;
      const failure = failures.shift() ?? failing(body.toString());
      if (failure !== undefined) {
        state.refused++;
        if (failure === 'drop') request.socket.destroy();
        else {
          const { status, delayMs } = typeof failure === 'number' ? { status: failure, delayMs: 0 } : failure;
          setTimeout(() => response.writeHead(status, { 'content-type': 'application/json' }).end('{"type":"server_error","code":"unavailable","detail":"try later","attr":null}'), delayMs);
        }
        return;
      }
      const upstream = httpRequest(`${target}${request.url}`, { method: request.method, headers: request.headers }, (answer) => {
        response.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(response);
      });
      upstream.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    server,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get refused() {
      return state.refused;
    },
    get requests() {
      return state.requests;
    },
    get bytes() {
      return state.bytes;
    },
  };
}

async function waitFor(condition: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
