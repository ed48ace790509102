import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { api } from './kit/http.js';
import { freePort, killTree, processesUnder, processTable, startPlatform, type Platform } from './kit/process.js';

/** Far beyond what a fast shutdown takes: the bound of a poll, not a measure of speed. */
const GONE_WITHIN_MS = 60_000;

/**
 * The process that owns the embedded PostgreSQL (the platform, or with workers their primary)
 * killed where none of its code runs, as SIGKILL or the kernel's out-of-memory killer do: the
 * server does not outlive it, and the next start on the same DATA_DIR has the data.
 */
describe('a killed platform on the embedded default', () => {
  const dataDirs: string[] = [];
  const platforms: Platform[] = [];

  afterAll(async () => {
    for (const platform of platforms) await killTree(platform.child.pid!);
    for (const dir of dataDirs) {
      await untilNoneUnder(dir);
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.each([
    ['one worker', { WORKERS: '1' }],
    ['the default workers', {}],
  ] as const)('with %s, leaves no PostgreSQL running and starts again with its data', async (_name, workers) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'analytics-killed-'));
    dataDirs.push(dataDir);
    const env = { DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...workers };
    const first = await startPlatform({ ...env, PORT: String(await freePort()) });
    platforms.push(first);
    const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { personal_api_key: string; environment_id: number };
    const made = await api(first.url, 'POST', `/api/environments/${boot.environment_id}/customer_profile_configs/`, { key: boot.personal_api_key, body: { scope: 'person', content: { kept: 'after a kill' } } });
    expect(made.status).toBe(201);

    // A second platform on a DATA_DIR in use is refused, naming the setting.
    const refused = await startPlatform({ ...env, PORT: String(await freePort()) }).catch((error: Error) => error.message);
    expect(refused).toMatch(/^invalid setting DATA_DIR: .+ is in use by a running platform \(process \d+\).*$/m);

    const postmaster = Number(readFileSync(join(dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(running(postmaster)).toBe(true);
    first.child.kill('SIGKILL');
    await first.exited;

    expect(await untilNoneUnder(dataDir)).toEqual([]);
    expect(running(postmaster)).toBe(false);
    expect(existsSync(join(dataDir, 'pg', 'postmaster.pid'))).toBe(false);

    const second = await startPlatform({ ...env, PORT: String(await freePort()) });
    platforms.push(second);
    const kept = await api(second.url, 'GET', `/api/environments/${boot.environment_id}/customer_profile_configs/${made.body.id}/`, { key: boot.personal_api_key });
    expect(kept.status).toBe(200);
    expect(kept.body.content).toEqual({ kept: 'after a kill' });
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(await untilNoneUnder(dataDir)).toEqual([]);
  }, 300_000);
});

/** Whether a pid runs (a zombie has ended: only its reaping is left). */
function running(pid: number): boolean {
  const entry = processTable().get(pid);
  return entry !== undefined && entry.state !== 'Z';
}

/** The processes whose command line names a path under `dir` (the postmaster's `-D`, its watchdog's arguments), once none is left or the bound passed. */
async function untilNoneUnder(dir: string): Promise<number[]> {
  const deadline = Date.now() + GONE_WITHIN_MS;
  for (;;) {
    const left = processesUnder(dir).filter(running);
    if (left.length === 0 || Date.now() > deadline) return left;
    await sleep(100);
  }
}

