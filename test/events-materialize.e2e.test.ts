import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createScratchDatabase, dropDatabase } from '../subgraphs/shared/db/database.js';
import { createEndpoint, hogql } from './kit/endpoints.js';
import { BUILD_DIR, freePort, runCli } from './kit/process.js';
import { TEST_SECRET_KEY } from './kit/secret.js';
import { expectUsageMistakes } from './kit/usage.js';
import { seedTenant } from './kit/seed.js';
import { startStack } from './kit/stack.js';

const CLI = `${BUILD_DIR}/router/process/cli/events-materialize/events-materialize.cli.js`;
const EVENTS = 20_000;

/**
 * An installation on PostgreSQL of its own (its saved endpoints are what `--suggest` reads) whose
 * events are in a chDB directory of this file's, written there by a process of their own: one
 * process at a time may hold the directory, and the command is another. The steps build on each
 * other: suggested, materialized, run again.
 */
let databaseUrl: string;
let env: Record<string, string>;
const chdbUrl = `chdb:${mkdtempSync(join(tmpdir(), 'analytics-events-materialize-'))}?database=materialized`;

/** Runs `script` (an async module body given `ClickHouse`, `clickhouse` and `args`) on the chDB directory in a process of its own; answers what it writes. */
function onChdb(script: string, args: unknown[] = []): Promise<string> {
  const modules = ['subgraphs/shared/clickhouse/clickhouse.js', 'subgraphs/shared/clickhouse/clickhouse.migrate.js', 'subgraphs/ingestion/clickhouse/clickhouse.migrations.js', 'subgraphs/shared/logger.js'].map((path) => resolve(BUILD_DIR, path));
  const body = `const [a, b, c, d, url, json] = process.argv.slice(1); const { ClickHouse } = await import(a); const { migrateClickHouse } = await import(b);
    const { clickhouseMigrations } = await import(c); const { createLogger } = await import(d); const args = JSON.parse(json);
    const clickhouse = ClickHouse.open(url); try { ${script} } finally { await clickhouse.close(); }`;
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', body, ...modules, chdbUrl, JSON.stringify(args)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.once('exit', (code) => (code === 0 ? done(out) : fail(new Error(err))));
  });
}

const materialize = (args: string[], extra: Record<string, string> = {}) => runCli(CLI, args, { ...env, ...extra });

/** The column's comment and how many rows its value differs from the JSON's, by the printer's read. */
async function columnState(property: string, column: string): Promise<{ comment: string; differing: number; rows: number }> {
  const out = await onChdb(
    `const [property, column] = args;
     const [{ comment }] = await clickhouse.query("SELECT comment FROM system.columns WHERE database = 'materialized' AND table = 'events' AND name = {column:String}", { column });
     const json = "if(JSONType(properties, {property:String}) = 'String', JSONExtractString(properties, {property:String}), nullIf(nullIf(JSONExtractRaw(properties, {property:String}), ''), 'null'))";
     const read = '\`' + column + '\`';
     const [row] = await clickhouse.query('SELECT countIf(NOT ((' + read + ' IS NULL AND ' + json + ' IS NULL) OR ifNull(' + read + ' = ' + json + ', false))) AS differing, count() AS rows FROM materialized.events', { property });
     process.stdout.write(JSON.stringify({ comment, differing: Number(row.differing), rows: Number(row.rows) }));`,
    [property, column],
  );
  return JSON.parse(out) as { comment: string; differing: number; rows: number };
}

beforeAll(async () => {
  databaseUrl = await createScratchDatabase(inject('databaseUrl'), 'events_materialize');
  // The saved endpoints live in PostgreSQL whatever the events store: a platform on it makes them.
  const stack = await startStack({ databaseUrl, env: { CLICKHOUSE_URL: '' } });
  try {
    const [first, second] = await Promise.all([seedTenant(databaseUrl, 'materialize-first'), seedTenant(databaseUrl, 'materialize-second')]);
    await createEndpoint(stack, first, { name: 'pages', query: hogql("select properties.$current_url, count() from events where properties['$browser'] = 'Chrome' group by 1") });
    await createEndpoint(stack, first, {
      name: 'browsers',
      query: { kind: 'TrendsQuery', series: [{ kind: 'EventsNode', event: '$pageview', properties: [{ key: '$os', value: 'Mac', operator: 'exact', type: 'event' }] }], breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' } },
    });
    await createEndpoint(stack, second, { name: 'emails', query: hogql('select e.properties.$browser, person.properties.email from events e') });
  } finally {
    await stack.stop();
  }
  await onChdb(`await migrateClickHouse(clickhouse, 'ingestion', clickhouseMigrations, createLogger('silent', 'test'));
    await clickhouse.command("INSERT INTO materialized.events (uuid, event, properties, timestamp, team_id, distinct_id, created_at) SELECT generateUUIDv4(), if(number % 3 = 0, '$pageview', 'click'), if(number % 7 = 0, '{}', concat('{\\"$browser\\":', if(number % 2 = 1, '\\"Firefox\\"', 'null'), ',\\"$current_url\\":\\"https://example.com/p/', toString(number % 100), '\\"}')), now64(6) - toIntervalSecond(number * 97), 1, concat('u', toString(number % 50)), now64(6) FROM numbers(${EVENTS})");`);
  env = { DATABASE_URL: databaseUrl, CLICKHOUSE_URL: chdbUrl, DATA_DIR: mkdtempSync(join(tmpdir(), 'analytics-events-materialize-data-')), SECRET_KEY: TEST_SECRET_KEY, LOG_LEVEL: 'warn' };
}, 180_000);

afterAll(async () => {
  if (databaseUrl) await dropDatabase(databaseUrl);
});

describe('npm run events:materialize', () => {
  it('answers --help and a mistake in the call before it reads a setting (exit 0, then 2 with the usage)', async () => {
    const help = await runCli(CLI, ['--help'], {});
    expect({ code: help.code, stderr: help.stderr }).toEqual({ code: 0, stderr: '' });
    expect(help.stdout.startsWith('usage: npm run events:materialize')).toBe(true);
    for (const option of ['--suggest', '--top', 'property']) expect(help.stdout).toContain(option);
    const mistakes = [
      [['--bogus'], /^error: unknown option '--bogus'\nusage: npm run events:materialize/],
      [[], /^error: name the properties to materialize, or give --top <n> or --suggest\nusage:/],
      [['bad\u0007name'], /^error: "bad\\u0007name" is not a property name: 1 to 200 characters, no control character\nusage:/],
      [['x'.repeat(201)], /^error: "x+" is not a property name/],
      [['--top', '0'], /^error: --top must be a whole number from 1 to 100\nusage:/],
      [['--suggest', '$browser'], /^error: --suggest changes nothing: give it alone\nusage:/],
    ] as const;
    await expectUsageMistakes(CLI, mistakes);
  }, 60_000);

  it('stops with one line when CLICKHOUSE_URL is unset (the events are in PostgreSQL), wrong or away', async () => {
    const away = `http://default@127.0.0.1:${await freePort()}/x`;
    const runs = await Promise.all(['', 'mysql://x', away].map((url) => materialize(['$browser'], { CLICKHOUSE_URL: url })));
    expect(runs.map((run) => ({ code: run.code, stdout: run.stdout }))).toEqual(Array(3).fill({ code: 1, stdout: '' }));
    expect(runs[0]!.stderr).toMatch(/^invalid setting CLICKHOUSE_URL: must be set: the events are in PostgreSQL[^\n]+\n$/);
    expect(runs[1]!.stderr).toMatch(/^invalid setting CLICKHOUSE_URL: must be [^\n]+\n$/);
    expect(runs[2]!.stderr).toMatch(/^invalid setting CLICKHOUSE_URL: cannot use ClickHouse: [^\n]+\n$/);
  }, 60_000);

  it("suggests the properties the saved endpoints read, most-read first, persons' aside", async () => {
    const { code, stdout, stderr } = await materialize(['--suggest']);
    expect(code, stderr).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^endpoints\s+environments\s+property\s+column$/);
    expect(lines.slice(1).map((line) => line.trim().split(/\s+/))).toEqual([
      ['3', '2', '$browser', '-'],
      ['1', '1', '$current_url', '-'],
      ['1', '1', '$os', '-'],
    ]);
  }, 60_000);

  it('makes the column, fills it for every stored event with its progress shown, and says so', async () => {
    const { code, stdout, stderr } = await materialize(['$browser']);
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/^\$browser: materialized as mat_\$browser, filled for every event in [\d.]+ s\n$/);
    expect(stderr).toMatch(/\[#{24}\] 100% · filling mat_\$browser · (\d+) of \1 parts · [\d.]+ s\n/);
    expect(await columnState('$browser', 'mat_$browser')).toEqual({ comment: 'column_materializer::properties::$browser', differing: 0, rows: EVENTS });
  }, 120_000);

  it('leaves a materialized property alone when run again, and --top materializes the most-read ones', async () => {
    const again = await materialize(['$browser']);
    expect({ code: again.code, stdout: again.stdout }).toEqual({ code: 0, stdout: '$browser: already materialized as mat_$browser\n' });
    const top = await materialize(['--top', '2']);
    expect(top.code, top.stderr).toBe(0);
    expect(top.stdout).toMatch(/^\$browser: already materialized as mat_\$browser\n\$current_url: materialized as mat_\$current_url, filled for every event in [\d.]+ s\n$/);
    expect(await columnState('$current_url', 'mat_$current_url')).toMatchObject({ differing: 0, rows: EVENTS });
    const suggested = await materialize(['--suggest']);
    expect(suggested.stdout).toMatch(/\$browser\s+mat_\$browser\n.*\$current_url\s+mat_\$current_url\n.*\$os\s+-\n$/s);
  }, 180_000);
});
