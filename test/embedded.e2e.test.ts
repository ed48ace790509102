import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { api, gql } from './kit/http.js';
import { descendants, freePort, processTable, startPlatform, type Platform } from './kit/process.js';

/**
 * `npm start` with nothing configured: an embedded PostgreSQL that the platform runs itself,
 * in-process pub/sub, a generated SECRET_KEY and a bootstrapped default account.
 */
describe('embedded mode (no DATABASE_URL, no REDIS_URL)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'analytics-embedded-'));
  let platform: Platform | undefined;
  let env: Record<string, string>;

  afterAll(async () => {
    platform?.child.kill('SIGKILL');
    await platform?.exited;
    // Stop whatever a killed run left behind, through the platform's own recovery.
    const cleanup = await startPlatform(env).catch(() => undefined);
    cleanup?.child.kill('SIGTERM');
    await cleanup?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('starts, bootstraps, serves REST and GraphQL, and keeps its data across restarts', async () => {
    env = { DATA_DIR: dataDir, PORT: String(await freePort()), LOG_LEVEL: 'warn' };
    platform = await startPlatform(env);

    const health = await api(platform.url, 'GET', '/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toEqual({ status: 'ok' });

    const file = join(dataDir, 'bootstrap.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'secret-key')).mode & 0o777).toBe(0o600);
    expect(platform.stdout.join('')).toContain(file);
    const boot = JSON.parse(readFileSync(file, 'utf8'));
    expect(Object.keys(boot).sort()).toEqual(['environment_id', 'organization_id', 'personal_api_key', 'project_api_key', 'project_id', 'user_uuid']);
    expect(boot.personal_api_key).toMatch(/^phx_[0-9A-Za-z]+$/);
    expect(boot.project_api_key).toMatch(/^phc_[0-9A-Za-z]+$/);
    expect(boot.project_id).toBe(boot.environment_id);

    const created = await api(platform.url, 'POST', `/api/environments/${boot.environment_id}/customer_profile_configs/`, {
      key: boot.personal_api_key,
      body: { scope: 'person', content: { kept: true } },
    });
    expect(created.status).toBe(201);
    const viaGraphql = await gql(`${platform.url}/graphql`, 'query ($p: Int!) { customer_profile_configs(project_id: $p) { count results { id project { name } } } }', { p: boot.environment_id }, boot.personal_api_key);
    expect(viaGraphql.data.customer_profile_configs).toEqual({ count: 1, results: [{ id: created.body.id, project: { name: 'Default project' } }] });

    // Historical ingestion on the embedded database, read back through the API.
    const batch = await api(platform.url, 'POST', '/batch/', {
      body: { api_key: boot.project_api_key, historical_migration: true, batch: [{ event: 'embedded', distinct_id: 'local', timestamp: new Date(Date.now() - 3 * 86_400_000).toISOString() }] },
    });
    expect(batch).toMatchObject({ status: 200, body: { status: 'Ok' } });
    const events = await api(platform.url, 'GET', `/api/environments/${boot.environment_id}/events/`, { key: boot.personal_api_key });
    expect(events.body.results.map((event: { event: string }) => event.event)).toEqual(['embedded']);

    const landing = await fetch(platform.url);
    expect(await landing.text()).toContain('/graphql');
    const explorer = await fetch(`${platform.url}/graphql`, { headers: { accept: 'text/html' } });
    expect(explorer.status).toBe(200);
    expect(await explorer.text()).toMatch(/graphiql/i);

    // A clean stop stops the embedded server too.
    platform.child.kill('SIGTERM');
    expect(await platform.exited).toBe(0);
    expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);

    platform = await startPlatform(env);
    const again = await api(platform.url, 'GET', `/api/environments/${boot.environment_id}/customer_profile_configs/${created.body.id}/`, { key: boot.personal_api_key });
    expect(again.status).toBe(200);
    expect(again.body.content).toEqual({ kept: true });
    const kept = await api(platform.url, 'GET', `/api/environments/${boot.environment_id}/events/`, { key: boot.personal_api_key });
    expect(kept.body.results).toHaveLength(1);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(boot);
  }, 240_000);

  it('recovers from a killed platform whose embedded server was left running', async () => {
    // Its watchdog killed first (as a container's end kills everything), the server is left behind.
    for (const pid of descendants(platform!.child.pid!).filter((pid) => commandLine(pid).includes('postmaster.watchdog.js'))) process.kill(pid, 'SIGKILL');
    platform!.child.kill('SIGKILL');
    await platform!.exited;
    const postmaster = Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const left = processTable().get(postmaster);
    expect(left !== undefined && left.state !== 'Z').toBe(true);
    platform = await startPlatform(env);
    expect((await api(platform.url, 'GET', '/healthz')).status).toBe(200);
    platform.child.kill('SIGTERM');
    expect(await platform.exited).toBe(0);
    platform = undefined;
  }, 180_000);

  it('fails naming PORT when the port is taken, and leaves nothing running behind', async () => {
    const { createServer } = await import('node:net');
    const blocker = createServer();
    const port = await freePort();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    const failed = await startPlatform({ ...env, PORT: String(port) }).catch((error: Error) => error.message);
    blocker.close();
    expect(failed).toMatch(new RegExp(`^invalid setting PORT: 127\\.0\\.0\\.1:${port} is already in use$`, 'm'));
    expect(existsSync(join(dataDir, 'embedded-database-url'))).toBe(false);
    expect(existsSync(join(dataDir, 'platform.pid'))).toBe(false);
    expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);
  });

  it('refuses a bad setting with a one-line message naming it', async () => {
    const failed = await startPlatform({ ...env, PORT: 'eighty' }).catch((error: Error) => error.message);
    expect(failed).toMatch(/exited with 1/);
    expect(failed).toMatch(/^invalid setting PORT: .+$/m);
  });
});

function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}
