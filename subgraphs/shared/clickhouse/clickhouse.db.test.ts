import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testChdbUrl } from '../../../test/kit/events-store.js';
import { createLogger } from '../logger.js';
import { ClickHouse, type ReadLimits } from './clickhouse.js';
import { migrateClickHouse, type ClickHouseMigration } from './clickhouse.migrate.js';

const log = createLogger('silent', 'test');
const LIMITS: ReadLimits = { seconds: 5, rows: 1000, bytes: 1_000_000, memoryBytes: 500_000_000 };
let clickhouse: ClickHouse;

beforeAll(async () => {
  clickhouse = ClickHouse.open(testChdbUrl(`clickhouse_kit_${Date.now()}`));
  await clickhouse.command(`CREATE DATABASE IF NOT EXISTS ${clickhouse.database}`);
});
afterAll(() => clickhouse?.close());

describe(migrateClickHouse.name, () => {
  it('runs each step once, in order, and records it', async () => {
    const steps: ClickHouseMigration[] = [
      { name: '2_fill', statements: (ddl) => [`INSERT INTO ${ddl.table('t')} VALUES (1)`] },
      { name: '1_table', statements: (ddl) => [`CREATE TABLE IF NOT EXISTS ${ddl.table('t')} (a Int32) ENGINE = MergeTree ORDER BY a`] },
    ];
    expect(await migrateClickHouse(clickhouse, 'kit', steps, log)).toEqual(['1_table', '2_fill']);
    expect(await migrateClickHouse(clickhouse, 'kit', steps, log)).toEqual([]);
    expect(await clickhouse.query(`SELECT a FROM ${clickhouse.database}.t`)).toEqual([{ a: 1 }]);
  });
});

describe('ClickHouse.read', () => {
  it('reads with its values bound, never as text of the query', async () => {
    expect(await clickhouse.read(`SELECT {text:String} AS t`, { text: "x' OR 1 = 1 --" }, LIMITS)).toEqual([{ t: "x' OR 1 = 1 --" }]);
  });

  it('stops a query past each limit, and leaves the writer able to write', async () => {
    await expect(clickhouse.read(`SELECT number FROM numbers(2000)`, {}, LIMITS)).rejects.toThrow(/Limit for result exceeded, max rows/);
    await expect(clickhouse.read(`SELECT repeat(toString(number % 10), 10000) FROM numbers(500)`, {}, LIMITS)).rejects.toThrow(/Limit for result exceeded, max bytes/);
    await expect(clickhouse.read(`SELECT sleep(1) FROM numbers(3) SETTINGS max_block_size = 1`, {}, { ...LIMITS, seconds: 1 })).rejects.toThrow(/Timeout exceeded/);
    await expect(clickhouse.read(`SELECT groupArray(toString(number)) FROM numbers(5000000)`, {}, { ...LIMITS, memoryBytes: 10_000_000 })).rejects.toThrow(/memory limit exceeded/i);
    await expect(clickhouse.read(`CREATE TABLE ${clickhouse.database}.r (a Int32) ENGINE = Memory`, {}, LIMITS)).rejects.toThrow(/readonly/i);
    await clickhouse.command(`CREATE TABLE IF NOT EXISTS ${clickhouse.database}.w (a Int32) ENGINE = Memory`);
    await clickhouse.command(`INSERT INTO ${clickhouse.database}.w VALUES (1)`);
    expect(await clickhouse.query(`SELECT number FROM numbers(2000)`)).toHaveLength(2000);
  });
});
