import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testChdbUrl } from '../../../test/kit/events-store.js';
import { ClickHouse } from '../../shared/clickhouse/clickhouse.js';
import { ClickHouseDdl } from '../../shared/clickhouse/clickhouse.ddl.js';
import { migrateClickHouse, recordTableStatements } from '../../shared/clickhouse/clickhouse.migrate.js';
import { createLogger } from '../../shared/logger.js';
import { clickhouseMigrations } from './clickhouse.migrations.js';

let clickhouse: ClickHouse;

beforeAll(() => {
  clickhouse = ClickHouse.open(testChdbUrl('cluster_ddl'));
});
afterAll(() => clickhouse?.close());

describe('the events tables', () => {
  it('fsync every inserted part and its directory before an insert answers', async () => {
    await migrateClickHouse(clickhouse, 'ingestion', clickhouseMigrations, createLogger('silent', 'test'));
    const [row] = await clickhouse.query<{ statement: string }>(`SHOW CREATE TABLE ${clickhouse.database}.events`);
    expect(row!.statement).toMatch(/fsync_after_insert = 1, fsync_part_directory = 1/);
  });
});

// No cluster runs on one machine: ClickHouse's own parser reads the statements a cluster is given.
describe('the cluster DDL', () => {
  it('is ClickHouse SQL: its parser reads every statement the events tables need', async () => {
    const ddl = new ClickHouseDdl('posthog', 'events_cluster');
    const statements = [...recordTableStatements(ddl), ...clickhouseMigrations.flatMap((step) => step.statements(ddl))];
    expect(statements.length).toBeGreaterThan(5);
    for (const statement of statements) {
      const [row] = await clickhouse.query<{ text: string }>('SELECT formatQuery({statement:String}) AS text', { statement });
      expect(row!.text, statement).toMatch(/ON CLUSTER events_cluster/);
    }
  });
});
