import { request as httpRequest } from 'node:http';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { descendants, freePort, startPlatform, type Platform } from './kit/process.js';
import { addMember, seedTenant, type Tenant } from './kit/seed.js';
import { startSmtpSink, type SmtpSink } from './kit/smtp-sink.js';
import { TEST_SECRET_KEY } from './kit/stack.js';
import { YOUNG_GENERATION_FLAG } from '../router/process/young-generation.js';
import { collect, wsClient } from './kit/ws.js';

/**
 * `npm start` with two workers and neither Redis nor a process per subgraph: what one worker
 * publishes reaches subscribers on the other, a key's rate limit counts across both, mail queued
 * by either is sent once, /metrics sums both, a worker that dies is replaced, and SIGTERM stops
 * the whole tree. Each request here opens a connection of its own, so Node's cluster hands them
 * to the workers in turn.
 */
interface Answer {
  status: number;
  body: any;
}

/** One request on a new connection (no keep-alive pool: consecutive requests reach other workers). */
function call(base: string, method: string, path: string, options: { key?: string; body?: unknown } = {}): Promise<Answer> {
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${base}${path}`, { method, agent: false, headers: { ...(options.key ? { authorization: `Bearer ${options.key}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: response.statusCode ?? 0, body: text.startsWith('{') || text.startsWith('[') ? JSON.parse(text) : text });
      });
    });
    request.on('error', reject);
    request.setTimeout(10_000, () => request.destroy(new Error(`${method} ${path}: no answer in 10 s`)));
    request.end(body);
  });
}

const CHANGES = 'subscription ($p: Int!) { customer_profile_config_changed(project_id: $p) { action id sequence } }';
const PER_MINUTE = 30;

describe('two workers without Redis', () => {
  let platform: Platform;
  let tenant: Tenant;
  let smtp: SmtpSink;
  let metricsUrl: string;
  const logLines = () => platform.stderr.join('').split('\n').filter((line) => line.startsWith('{') && line.endsWith('}')).map((line) => JSON.parse(line) as Record<string, any>);

  beforeAll(async () => {
    smtp = await startSmtpSink();
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    platform = await startPlatform({
      DATABASE_URL: inject('databaseUrl'),
      SECRET_KEY: TEST_SECRET_KEY,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'analytics-workers-')),
      PORT: String(await freePort()),
      METRICS_PORT: String(metricsPort),
      SMTP_URL: smtp.url,
      WORKERS: '2',
      LOG_LEVEL: 'info',
      RATE_LIMIT_PERSONAL_KEY_PER_MINUTE: String(PER_MINUTE),
    });
    tenant = await seedTenant(inject('databaseUrl'), 'workers');
  }, 120_000);

  afterAll(async () => {
    platform?.child.kill('SIGKILL');
    await smtp?.close();
  });

  it('starts the given number of workers, each on the shared port, and says so once', () => {
    const workers = logLines().filter((line) => line.msg === 'worker listening');
    expect(new Set(workers.map((line) => line.pid)).size).toBe(2);
    expect(logLines().filter((line) => line.msg === 'platform listening')).toEqual([expect.objectContaining({ workers: 2, url: platform.url })]);
    expect(platform.stdout.join('').match(/Analytics platform listening on/g)).toHaveLength(1);
  });

  it("forks its workers with the larger young generation (router/process/young-generation.ts)", () => {
    const workers = logLines().filter((line) => line.msg === 'worker listening');
    expect(workers).toHaveLength(2);
    for (const { pid } of workers) expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')).toContain(YOUNG_GENERATION_FLAG);
  });

  it('delivers what either worker publishes to subscribers on both, in order, once each', async () => {
    const p = tenant.environment_id;
    // Six sockets: handed out in turn, three land on each worker.
    const clients = Array.from({ length: 6 }, () => wsClient(`${platform.url.replace('http', 'ws')}/graphql`, tenant.personal_api_key));
    const streams = clients.map((client) => collect<{ customer_profile_config_changed: { id: string; sequence: number } }>(client, CHANGES, { p }));
    // Subscribed once a first change reaches every stream (a subscription starts a moment after its socket).
    let probes = 0;
    while (!streams.every((stream) => stream.results.length > 0)) {
      expect(probes++).toBeLessThan(50);
      const probe = await call(platform.url, 'POST', `/api/environments/${p}/customer_profile_configs/`, { key: tenant.personal_api_key, body: { scope: 'person', content: { probe: probes } } });
      expect(probe.status, JSON.stringify(probe.body)).toBe(201);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seen = streams.map((stream) => stream.results.length);
    const made: string[] = [];
    for (let i = 0; i < 8; i++) {
      const created = await call(platform.url, 'POST', `/api/environments/${p}/customer_profile_configs/`, { key: tenant.personal_api_key, body: { scope: 'person', content: { i } } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      made.push(created.body.id);
    }
    for (const [index, stream] of streams.entries()) {
      const results = (await stream.next(seen[index]! + made.length)).slice(seen[index]!);
      expect(results.map((result) => result.data!.customer_profile_config_changed.id)).toEqual(made);
      const sequences = results.map((result) => result.data!.customer_profile_config_changed.sequence);
      expect(sequences).toEqual(sequences.map((_, i) => sequences[0]! + i));
    }
    streams.forEach((stream) => stream.dispose());
    await Promise.all(clients.map((client) => client.dispose()));
  });

  it("counts a key's rate limit across the workers, not per worker", async () => {
    const other = await seedTenant(inject('databaseUrl'), 'workers-limit');
    // The limit counts in minutes of the clock: a loop that straddled two could stay under the
    // limit in each, counted together or not. Start it with the minute's end at least 10 s away.
    const msLeft = 60_000 - (Date.now() % 60_000);
    if (msLeft < 10_000) await new Promise((resolve) => setTimeout(resolve, msLeft + 50));
    const answers = [];
    for (let i = 0; i < PER_MINUTE + 6; i++) answers.push(await call(platform.url, 'GET', '/api/users/@me/', { key: other.personal_api_key }));
    const refused = answers.filter((answer) => answer.status === 429);
    expect(answers.filter((answer) => answer.status === 200).length).toBeLessThan(2 * PER_MINUTE);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.body).toMatchObject({ type: 'throttled_error', code: 'throttled' });
  });

  it('revokes a key at once on both workers, though each had it cached', async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'workers-revoke');
    const created = await call(platform.url, 'POST', '/api/personal_api_keys/', { key: owner.personal_api_key, body: { label: 'revoked', scopes: ['user:read'] } });
    expect(created.status).toBe(201);
    // Consecutive connections reach the workers in turn: both learn the key.
    for (let i = 0; i < 4; i++) expect((await call(platform.url, 'GET', '/api/users/@me/', { key: created.body.value })).status).toBe(200);
    expect((await call(platform.url, 'DELETE', `/api/personal_api_keys/${created.body.id}/`, { key: owner.personal_api_key })).status).toBe(204);
    for (let i = 0; i < 4; i++) expect((await call(platform.url, 'GET', '/api/users/@me/', { key: created.body.value })).status).toBe(401);
  });

  it("takes a removed member's access away at once on both workers, though each had the key cached", async () => {
    const [owner, member] = await Promise.all([seedTenant(inject('databaseUrl'), 'workers-team'), seedTenant(inject('databaseUrl'), 'workers-member')]);
    await addMember(inject('databaseUrl'), platform.url, member.personal_api_key, owner.organization_id, 1);
    const configs = `/api/environments/${owner.environment_id}/customer_profile_configs/`;
    for (let i = 0; i < 4; i++) expect((await call(platform.url, 'GET', configs, { key: member.personal_api_key })).status).toBe(200);
    const membership = `/api/organizations/${owner.organization_id}/members/${member.user_uuid}/`;
    expect((await call(platform.url, 'DELETE', membership, { key: owner.personal_api_key })).status).toBe(204);
    for (let i = 0; i < 4; i++) expect((await call(platform.url, 'GET', configs, { key: member.personal_api_key })).status).toBe(403);
  });

  it("takes a deleted project's environments away at once on both workers, though each had their placement cached", async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'workers-placed');
    const configs = `/api/environments/${owner.environment_id}/customer_profile_configs/`;
    for (let i = 0; i < 4; i++) expect((await call(platform.url, 'GET', configs, { key: owner.personal_api_key })).status).toBe(200);
    const project = `/api/organizations/${owner.organization_id}/projects/${owner.project_id}/`;
    expect((await call(platform.url, 'DELETE', project, { key: owner.personal_api_key })).status).toBe(204);
    for (let i = 0; i < 4; i++) expect((await call(platform.url, 'GET', configs, { key: owner.personal_api_key })).status).toBe(404);
  });

  it("shows a renamed project's new name at once on both workers, though each had the name cached", async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'workers-renamed');
    const configs = `/api/environments/${owner.environment_id}/customer_profile_configs/`;
    expect((await call(platform.url, 'POST', configs, { key: owner.personal_api_key, body: { scope: 'person', content: {} } })).status).toBe(201);
    const query = 'query ($p: Int!) { customer_profile_configs(project_id: $p) { results { project { name } } } }';
    const name = async () => {
      const answer = await call(platform.url, 'POST', '/graphql', { key: owner.personal_api_key, body: { query, variables: { p: owner.environment_id } } });
      return answer.body.data.customer_profile_configs.results[0].project.name;
    };
    for (let i = 0; i < 4; i++) expect(await name()).toBe('Default project');
    const project = `/api/organizations/${owner.organization_id}/projects/${owner.project_id}/`;
    expect((await call(platform.url, 'PATCH', project, { key: owner.personal_api_key, body: { name: 'Renamed' } })).status).toBe(200);
    for (let i = 0; i < 4; i++) expect(await name()).toBe('Renamed');
  });

  it('sends a mail queued by one worker exactly once, though both work the outbox', async () => {
    const asked = await call(platform.url, 'POST', '/api/users/request_email_verification/', { body: { uuid: tenant.user_uuid } });
    expect(asked.status).toBe(200);
    const mail = await smtp.waitFor(tenant.email);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(smtp.mails.filter((received) => received.to.includes(tenant.email.toLowerCase()))).toEqual([mail]);
  });

  it("serves /metrics as the sum of both workers' counts", async () => {
    const total = async () => {
      const text = await (await fetch(metricsUrl)).text();
      return [...text.matchAll(/^analytics_requests_total\{[^}]*transport="rest"[^}]*\} (\d+)/gm)].reduce((sum, match) => sum + Number(match[1]), 0);
    };
    const reader = await seedTenant(inject('databaseUrl'), 'workers-metrics');
    const before = await total();
    for (let i = 0; i < 10; i++) expect((await call(platform.url, 'GET', '/api/users/@me/', { key: reader.personal_api_key })).status).toBe(200);
    expect((await total()) - before).toBe(10);
  });

  it('replaces a worker that dies, and keeps serving meanwhile', async () => {
    const pids = new Set(logLines().filter((line) => line.msg === 'worker listening').map((line) => line.pid as number));
    const victim = [...pids][0]!;
    process.kill(victim, 'SIGKILL');
    // A connection handed to the victim as it died is lost with it; the primary then stops handing it any.
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (let i = 0; i < 10; i++) expect((await call(platform.url, 'GET', '/healthz')).status).toBe(200);
    const deadline = Date.now() + 60_000;
    while (logLines().filter((line) => line.msg === 'worker listening').length < 3) {
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(logLines().some((line) => line.msg === 'worker ended; starting another' && line.worker_pid === victim)).toBe(true);
    const reader = await seedTenant(inject('databaseUrl'), 'workers-replaced');
    for (let i = 0; i < 4; i++) expect((await call(platform.url, 'GET', '/api/users/@me/', { key: reader.personal_api_key })).status).toBe(200);
  }, 90_000);

  it('stops the primary and every worker on SIGTERM, exit code 0', async () => {
    const pids = logLines()
      .filter((line) => line.msg === 'worker listening')
      .map((line) => line.pid as number);
    platform.child.kill('SIGTERM');
    expect(await platform.exited).toBe(0);
    const alive = pids.filter((pid) => {
      try {
        process.kill(pid, 0);
        return true;
      } catch {
        return false;
      }
    });
    expect(alive).toEqual([]);
  }, 30_000);
});

describe('one worker', () => {
  it('runs everything in the one process npm start runs, and stops on SIGTERM', async () => {
    const platform = await startPlatform({
      DATABASE_URL: inject('databaseUrl'),
      SECRET_KEY: TEST_SECRET_KEY,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'analytics-one-worker-')),
      PORT: String(await freePort()),
      WORKERS: '1',
      LOG_LEVEL: 'info',
    });
    try {
      const tenant = await seedTenant(inject('databaseUrl'), 'one-worker');
      // No worker processes (and, on DATABASE_URL, no embedded server): the one process alone.
      expect(descendants(platform.child.pid!)).toEqual([platform.child.pid]);
      expect(platform.stderr.join('')).not.toContain('worker listening');
      const me = await call(platform.url, 'GET', '/api/users/@me/', { key: tenant.personal_api_key });
      expect(me).toMatchObject({ status: 200, body: { email: tenant.email } });
      platform.child.kill('SIGTERM');
      expect(await platform.exited).toBe(0);
    } finally {
      platform.child.kill('SIGKILL');
    }
  }, 60_000);
});
