import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BUILD_DIR, freePort, runCli } from './kit/process.js';

const asRoot = process.getuid?.() === 0;

/** `npm start` on the embedded default, as root in a checkout under a 0700 directory (/root on Debian). */
describe.skipIf(!asRoot)('the embedded default as root', () => {
  const locked = mkdtempSync(join(tmpdir(), 'analytics-root-home-'));
  afterAll(() => rmSync(locked, { recursive: true, force: true }));

  it('stops at once with one line naming the directory the postgres user cannot enter, and both ways out', async () => {
    chmodSync(locked, 0o700);
    const dataDir = join(locked, 'checkout', '.data');
    const started = Date.now();
    const result = await runCli(`${BUILD_DIR}/router/process/main.js`, [], { DATA_DIR: dataDir, PORT: String(await freePort()), LOG_LEVEL: 'silent' });
    expect(result.code).toBe(1);
    expect(Date.now() - started).toBeLessThan(15_000);
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`cannot enter ${locked}`);
    expect(lines[0]).toContain('set DATA_DIR');
    expect(lines[0]).toContain(`chmod o+x ${locked}`);
    // Nothing outside DATA_DIR was opened up.
    expect(statSync(locked).mode & 0o777).toBe(0o700);
  });
});

/** The embedded server's own words reach the platform's log when it cannot start. */
describe('the embedded server failing', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'analytics-broken-pg-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('logs the first lines of what PostgreSQL said, at error level', async () => {
    // A data directory that claims to be one and holds nothing else.
    mkdirSync(join(dataDir, 'pg'), { recursive: true });
    writeFileSync(join(dataDir, 'pg', 'PG_VERSION'), '17\n');
    const result = await runCli(`${BUILD_DIR}/router/process/main.js`, [], { DATA_DIR: dataDir, PORT: String(await freePort()), LOG_LEVEL: 'error' });
    expect(result.code).toBe(1);
    const records = result.stderr
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { level: number; msg: string; output?: string[] });
    const report = records.find((record) => record.msg.startsWith('embedded PostgreSQL failed at start'));
    expect(report?.level).toBe(50);
    expect(report!.output!.join('\n')).toMatch(/postgresql\.conf|data directory|No such file|FATAL/i);
    // And the one line start-up ends with says it too, never a stack.
    const last = result.stderr.trim().split('\n').at(-1)!;
    expect(last).toMatch(/^start-up failed: could not start PostgreSQL in .*pg: \S/);
  }, 60_000);
});
