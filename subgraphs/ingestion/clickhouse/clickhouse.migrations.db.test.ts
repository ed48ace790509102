import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testChdbUrl } from '../../../test/kit/events-store.js';
import { ClickHouse } from '../../shared/clickhouse/clickhouse.js';
import { ClickHouseDdl } from '../../shared/clickhouse/clickhouse.ddl.js';
import { recordTableStatements } from '../../shared/clickhouse/clickhouse.migrate.js';
import { clickhouseMigrations } from './clickhouse.migrations.js';

// No cluster runs on one machine: ClickHouse's own parser reads the statements a cluster is given.
let clickhouse: ClickHouse;

beforeAll(() => {
  clickhouse = ClickHouse.open(testChdbUrl('cluster_ddl'));
});
afterAll(() => clickhouse?.close());

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
