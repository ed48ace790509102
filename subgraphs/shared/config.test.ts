import { mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from './config.js';

const dataDir = () => mkdtempSync(join(tmpdir(), 'config-test-'));

describe(parseConfig.name, () => {
  it('applies the contract defaults', () => {
    const config = parseConfig({ DATA_DIR: dataDir() });
    expect(config).toMatchObject({ PORT: 8000, HOST: '127.0.0.1', LOG_LEVEL: 'info' });
    expect(config.DATABASE_URL).toBeUndefined();
    expect(config.REDIS_URL).toBeUndefined();
  });

  it('generates SECRET_KEY once into $DATA_DIR/secret-key with mode 600', () => {
    const dir = dataDir();
    const first = parseConfig({ DATA_DIR: dir });
    expect(first.secretKeyGenerated).toBe(true);
    expect(statSync(join(dir, 'secret-key')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(dir, 'secret-key'), 'utf8').trim()).toBe(first.SECRET_KEY);
    expect(parseConfig({ DATA_DIR: dir }).SECRET_KEY).toBe(first.SECRET_KEY);
  });

  it.each([
    ['PORT', 'eighty'],
    ['PORT', '0x1f'],
    ['WORKERS', '1e1'],
    ['RATE_LIMIT_PERSONAL_KEY_PER_MINUTE', '60/min'],
    ['DATABASE_URL', 'mysql://localhost/x'],
    ['REDIS_URL', 'not a url'],
    ['LOG_LEVEL', 'loud'],
    ['SECRET_KEY', 'short'],
    ['SMTP_URL', 'http://mail'],
    ['HOST', 'not a host'],
  ])('names %s when it is set but invalid', (variable, value) => {
    expect(() => parseConfig({ DATA_DIR: dataDir(), [variable]: value })).toThrowError(new RegExp(`^invalid setting ${variable}: `));
    expect(() => parseConfig({ DATA_DIR: dataDir(), [variable]: value })).toThrow(ConfigError);
  });

  it('takes host names and IPv4 and IPv6 addresses as HOST', () => {
    for (const host of ['localhost', '0.0.0.0', '::', '::1', '[::1]', 'api.example.com']) expect(parseConfig({ DATA_DIR: dataDir(), HOST: host }).HOST).toBe(host);
  });

  it('refuses an INGEST_PORT or METRICS_PORT that is PORT, before anything starts', () => {
    expect(() => parseConfig({ DATA_DIR: dataDir(), PORT: '18210', INGEST_PORT: '18210' })).toThrowError(/^invalid setting INGEST_PORT: must differ from PORT/);
    expect(() => parseConfig({ DATA_DIR: dataDir(), PORT: '18210', METRICS_PORT: '18210' })).toThrowError(/^invalid setting METRICS_PORT: must differ from PORT/);
    expect(parseConfig({ DATA_DIR: dataDir(), PORT: '0', INGEST_PORT: '0' }).INGEST_PORT).toBe(0);
  });

  it('names DATA_DIR, at once, when it cannot be made (under /proc, where a recursive mkdir spins for ever)', () => {
    expect(() => parseConfig({ DATA_DIR: '/proc/analytics-data/nested' })).toThrowError(/^invalid setting DATA_DIR: cannot be made/);
  });

  it('treats an empty or blank variable as unset', () => {
    expect(parseConfig({ DATA_DIR: dataDir(), DATABASE_URL: '' }).DATABASE_URL).toBeUndefined();
    // Read as numbers, blanks were 0: a random port, and no rate limit at all.
    const blank = parseConfig({ DATA_DIR: dataDir(), PORT: ' ', RATE_LIMIT_PERSONAL_KEY_PER_MINUTE: '\t', INGEST_PORT: '  ' });
    expect({ port: blank.PORT, limit: blank.RATE_LIMIT_PERSONAL_KEY_PER_MINUTE, ingest: blank.INGEST_PORT }).toEqual({ port: 8000, limit: 480, ingest: undefined });
    expect(parseConfig({ DATA_DIR: dataDir(), PORT: ' 8123 ', SHUTDOWN_TIMEOUT_SECONDS: '2.5' })).toMatchObject({ PORT: 8123, SHUTDOWN_TIMEOUT_SECONDS: 2.5 });
  });
});
