import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createScratchDatabase, dropDatabase } from '../subgraphs/shared/db/database.js';
import { sql } from './kit/db.js';
import { api } from './kit/http.js';
import { anEvent, daysAgo, postBatch } from './kit/ingest.js';
import { BUILD_DIR, freePort, runCli, startPlatform } from './kit/process.js';
import { TEST_SECRET_KEY } from './kit/secret.js';
import { expectUsageMistakes } from './kit/usage.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

const CLI = `${BUILD_DIR}/router/process/cli/events-copy/events-copy.cli.js`;

interface Summary {
  environments: { environment_id: number; postgres: number; clickhouse: number; matches: boolean; read: number; inserted: number }[];
  read: number;
  inserted: number;
  stopped: boolean;
}

/**
 * An installation on PostgreSQL of its own (`--all` copies what it holds, and nothing of the other
 * suites), its events posted through the platform, copied into a chDB directory of this file's. The
 * steps build on each other: a killed copy, the switch, a second run, a count that differs.
 */
let databaseUrl: string;
let stack: Stack;
let first: Tenant;
let second: Tenant;
let env: Record<string, string>;
let checkpoint: string;
const chdbUrl = `chdb:${mkdtempSync(join(tmpdir(), 'analytics-events-copy-'))}?database=copied`;

/** Persons' distinct ids in each tenant's events, and the one group its first event identifies. */
const DISTINCT_IDS = 17;
const GROUP = { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme' } };

/** `count` events for `owner` over four days, posted to the stack (on PostgreSQL) in batches. */
async function ingest(owner: Tenant, count: number): Promise<Record<string, unknown>[]> {
  const events = Array.from({ length: count }, (_, index) =>
    anEvent({ distinct_id: `user-${index % DISTINCT_IDS}`, timestamp: daysAgo(2 + (index % 4), index * 1000), ...(index === 0 ? { event: '$groupidentify', properties: { index, ...GROUP } } : { properties: { index, nested: { n: 1.5 } } }) }),
  );
  for (let offset = 0; offset < events.length; offset += 500) {
    const response = await postBatch(stack, { api_key: owner.project_api_key, batch: events.slice(offset, offset + 500) });
    expect(response.status, response.text).toBe(200);
  }
  // Persons and groups are written by the profile worker after the batches: the copy finds them all.
  await until(async () => (await sql<{ queued: string }>(databaseUrl, 'select count(*) as queued from ingestion.profile_updates'))[0]!.queued === '0');
  return events;
}

async function until(condition: () => Promise<boolean>): Promise<void> {
  for (let tries = 0; !(await condition()); tries++) {
    if (tries > 300) throw new Error('the profile queue did not drain');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** What the environment's persons, distinct ids and groups are in the mirror (the latest version of each). */
const MIRRORED = {
  persons: `SELECT toString(person) AS id, props AS properties, toUInt32(v) AS version FROM (SELECT id AS person, argMax(properties, version) AS props, max(version) AS v, argMax(is_deleted, version) AS deleted FROM copied.person WHERE team_id = {team:Int64} GROUP BY id) WHERE deleted = 0 ORDER BY id`,
  distinct_ids: `SELECT key AS distinct_id, toString(person) AS person_id FROM (SELECT distinct_id AS key, argMax(person_id, version) AS person FROM copied.person_distinct_id2 WHERE team_id = {team:Int64} GROUP BY distinct_id) ORDER BY distinct_id`,
  groups: `SELECT group_key, argMax(group_properties, _timestamp) AS properties FROM copied.groups WHERE team_id = {team:Int64} GROUP BY group_type_index, group_key ORDER BY group_key`,
};

const copy = (args: string[], extra: Record<string, string> = {}) => runCli(CLI, args, { ...env, ...extra });
const summaryOf = (stdout: string) => JSON.parse(stdout) as Summary;

/** Rows of a query on the chDB directory, asked by a process of its own: one process at a time may hold it. */
function clickhouseRows<Row>(query: string, params: Record<string, unknown>): Promise<Row[]> {
  const module = resolve(BUILD_DIR, 'subgraphs/shared/clickhouse/clickhouse.js');
  const script = `const { ClickHouse } = await import(process.argv[1]); const clickhouse = ClickHouse.open(process.argv[2]);
    process.stdout.write(JSON.stringify(await clickhouse.query(process.argv[3], JSON.parse(process.argv[4])))); await clickhouse.close();`;
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script, module, chdbUrl, query, JSON.stringify(params)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('exit', (code) => (code === 0 ? done(JSON.parse(out) as Row[]) : fail(new Error(err))));
  });
}

beforeAll(async () => {
  databaseUrl = await createScratchDatabase(inject('databaseUrl'), 'events_copy');
  // On PostgreSQL whatever store the run's suites use: these are the events to move.
  stack = await startStack({ databaseUrl, env: { CLICKHOUSE_URL: '' } });
  [first, second] = await Promise.all([seedTenant(databaseUrl, 'copy-first'), seedTenant(databaseUrl, 'copy-second')]);
  await ingest(first, 1500);
  const dataDir = mkdtempSync(join(tmpdir(), 'analytics-events-copy-data-'));
  env = { DATABASE_URL: databaseUrl, CLICKHOUSE_URL: chdbUrl, DATA_DIR: dataDir, SECRET_KEY: TEST_SECRET_KEY, LOG_LEVEL: 'warn' };
  checkpoint = join(dataDir, 'events-copy.checkpoint.json');
}, 120_000);

afterAll(async () => {
  await stack?.stop();
  if (databaseUrl) await dropDatabase(databaseUrl);
});

describe('npm run events:copy', () => {
  it('answers --help and a mistake in the call before it reads a setting (exit 0, then 2 with the usage)', async () => {
    const help = await runCli(CLI, ['--help'], {});
    expect({ code: help.code, stderr: help.stderr }).toEqual({ code: 0, stderr: '' });
    expect(help.stdout.startsWith('usage: npm run events:copy')).toBe(true);
    for (const option of ['--environment', '--all', '--page-size', '--checkpoint', '--restart']) expect(help.stdout).toContain(option);
    const mistakes = [
      [['--bogus'], /^error: unknown option '--bogus'\nusage: npm run events:copy/],
      [[], /^error: name the environments to copy \(--environment <id>\) or --all\nusage:/],
      [['--environment', '1,x'], /^error: --environment must be an environment id \(a whole number\), not "x"\nusage:/],
      [['--all', '--environment', '1'], /^error: give --environment or --all, not both\nusage:/],
      [['--all', '--page-size', '0'], /^error: --page-size must be a whole number from 1 to 100000\nusage:/],
    ] as const;
    await expectUsageMistakes(CLI, mistakes);
  }, 60_000);

  it('names CLICKHOUSE_URL in one line when it is unset, before it opens anything', async () => {
    const { code, stdout, stderr } = await copy(['--all'], { CLICKHOUSE_URL: '', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
    expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
    expect(stderr).toMatch(/^invalid setting CLICKHOUSE_URL: must be set: [^\n]+\n$/);
  }, 60_000);

  it('goes on from its checkpoint after a SIGKILL in the middle, and counts alike at the end', async () => {
    const child = spawn(process.execPath, [CLI, '--environment', String(first.environment_id), '--page-size', '20'], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let progress = '';
    child.stderr.on('data', (chunk: Buffer) => {
      progress += chunk.toString();
      if (/ of 1,500 events · environment /.test(progress)) child.kill('SIGKILL');
    });
    expect(await new Promise((done) => child.once('exit', (_code, signal) => done(signal)))).toBe('SIGKILL');
    const killedAt = (JSON.parse(readFileSync(checkpoint, 'utf8')) as { environments: Record<string, { read: number }> }).environments[first.environment_id]!.read;
    expect(killedAt).toBeGreaterThan(0);
    expect(killedAt).toBeLessThan(1500);

    const { code, stdout, stderr } = await copy(['--environment', String(first.environment_id), '--page-size', '200']);
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(/\[#{24}\] 100% · 1,500 of 1,500 events · environment \d+ · [\d,]+ events\/s · ETA 0 s\n/);
    const summary = summaryOf(stdout);
    expect(summary.read).toBe(1500 - killedAt);
    expect(summary.environments).toMatchObject([{ environment_id: first.environment_id, postgres: 1500, clickhouse: 1500, matches: true, read: 1500 - killedAt }]);
    // A page the kill caught between its insert and its checkpoint is read again, and left out.
    expect(summary.inserted).toBeGreaterThanOrEqual(1500 - killedAt - 20);
  }, 120_000);

  it('leaves out the events ClickHouse holds already: ingested there after the switch, or a batch retried on both sides', async () => {
    const before = await ingest(second, 300);
    // The switch: the platform on ClickHouse takes a retry of five events PostgreSQL has, and five new ones.
    const platformEnv = { ...env, DATA_DIR: mkdtempSync(join(tmpdir(), 'analytics-events-copy-platform-')), PORT: String(await freePort()), WORKERS: '1' };
    const platform = await startPlatform(platformEnv);
    try {
      const batch = [...before.slice(0, 5), ...Array.from({ length: 5 }, () => anEvent())];
      const response = await api(platform.url, 'POST', '/batch/', { body: { api_key: second.project_api_key, batch } });
      expect(response.status, response.text).toBe(200);
    } finally {
      platform.child.kill('SIGTERM');
      await platform.exited;
    }

    const { code, stdout, stderr } = await copy(['--all', '--page-size', '64']);
    expect(code, stderr).toBe(0);
    const summary = summaryOf(stdout);
    const expected = [
      { environment_id: first.environment_id, postgres: 1500, clickhouse: 1500, matches: true, read: 0, inserted: 0, mirrored: null },
      { environment_id: second.environment_id, postgres: 300, clickhouse: 305, matches: true, read: 300, inserted: 295, mirrored: { persons: DISTINCT_IDS, distinct_ids: DISTINCT_IDS, groups: 1 } },
    ];
    expect(summary.environments).toEqual(expected.sort((a, b) => a.environment_id - b.environment_id));
  }, 120_000);

  it('copies nothing when run again, and passes the count check', async () => {
    const { code, stdout, stderr } = await copy(['--all']);
    expect(code, stderr).toBe(0);
    const summary = summaryOf(stdout);
    expect({ read: summary.read, inserted: summary.inserted, matches: summary.environments.map((check) => check.matches) }).toEqual({ read: 0, inserted: 0, matches: [true, true] });
  }, 60_000);

  it('names the environment whose counts differ (exit 1), and --restart copies what the checkpoint had passed', async () => {
    // Stored on PostgreSQL after the copy, older than its checkpoint: only a copy from the start finds it.
    const late = await postBatch(stack, { api_key: first.project_api_key, batch: [anEvent({ timestamp: daysAgo(30) })] });
    expect(late.status, late.text).toBe(200);
    const { code, stdout, stderr } = await copy(['--environment', String(first.environment_id)]);
    expect({ code, read: summaryOf(stdout).read }).toEqual({ code: 1, read: 0 });
    expect(stderr).toMatch(new RegExp(`^environment ${first.environment_id}: PostgreSQL holds 1501 events, ClickHouse 1500; run again with --restart to copy what is missing$`, 'm'));

    const again = await copy(['--environment', String(first.environment_id), '--restart']);
    expect(again.code, again.stderr).toBe(0);
    expect(summaryOf(again.stdout).environments).toEqual([
      { environment_id: first.environment_id, postgres: 1501, clickhouse: 1501, matches: true, read: 1501, inserted: 1, mirrored: { persons: DISTINCT_IDS, distinct_ids: DISTINCT_IDS, groups: 1 } },
    ]);
  }, 120_000);

  it('holds every event once, as PostgreSQL holds it', async () => {
    const time = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
    const postgres = await sql<Record<string, string>>(
      databaseUrl,
      `select uuid::text as id, event, distinct_id, properties::text as properties, ${time('timestamp')} as time, ${time('created_at')} as created from ingestion.events where environment_id = $1 order by uuid`,
      [first.environment_id],
    );
    const stamp = (column: string) => `formatDateTime(${column}, '%Y-%m-%dT%H:%i:%S.%fZ')`;
    const clickhouse = await clickhouseRows<Record<string, string>>(
      `SELECT toString(uuid) AS id, event, distinct_id, properties, ${stamp('timestamp')} AS time, ${stamp('created_at')} AS created FROM copied.events WHERE team_id = {team:Int64} ORDER BY id`,
      { team: first.environment_id },
    );
    expect(clickhouse).toEqual(postgres);
    const [rows] = await clickhouseRows<{ rows: string; uuids: string }>('SELECT count() AS rows, uniqExact(uuid) AS uuids FROM copied.events WHERE team_id = {team:Int64}', { team: second.environment_id });
    expect({ rows: Number(rows!.rows), uuids: Number(rows!.uuids) }).toEqual({ rows: 305, uuids: 305 });
  }, 60_000);

  it('mirrors the persons, distinct ids and groups PostgreSQL held before the switch, as it holds them', async () => {
    const team = { team: first.environment_id };
    const [persons, distinctIds, groups] = await Promise.all([
      sql(databaseUrl, 'select uuid::text as id, properties::text as properties, version from ingestion.persons where environment_id = $1 order by uuid', [first.environment_id]),
      sql(databaseUrl, 'select d.distinct_id, p.uuid::text as person_id from ingestion.person_distinct_ids d join ingestion.persons p on p.id = d.person_id where d.environment_id = $1 order by d.distinct_id collate "C"', [first.environment_id]),
      sql(databaseUrl, 'select group_key, group_properties::text as properties from ingestion.groups where environment_id = $1 order by group_key', [first.environment_id]),
    ]);
    expect(persons).toHaveLength(DISTINCT_IDS);
    expect(groups).toEqual([{ group_key: 'acme', properties: '{"name": "Acme"}' }]);
    // One process at a time holds the chDB directory: one query after the other.
    const mirrored = [];
    for (const query of [MIRRORED.persons, MIRRORED.distinct_ids, MIRRORED.groups]) mirrored.push(await clickhouseRows<Record<string, unknown>>(query, team));
    expect(mirrored).toEqual([persons, distinctIds, groups]);
  }, 60_000);
});
