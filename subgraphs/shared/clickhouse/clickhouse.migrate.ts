import type { Logger } from '../logger.js';
import type { ClickHouse } from './clickhouse.js';
import { ClickHouseDdl } from './clickhouse.ddl.js';

/** One step of a subgraph's ClickHouse schema: its statements, written for the server or the cluster in hand. */
export interface ClickHouseMigration {
  /** Unique within the subgraph, sorting in the order the steps run (`20261203_events`). */
  name: string;
  statements(ddl: ClickHouseDdl): string[];
}

/** The record of the steps that ran, one row a step (PostgreSQL's keep theirs in `mikro_orm_migrations`). */
const RECORD = 'clickhouse_migrations';

/** Every statement of a step is idempotent (`IF NOT EXISTS`), so a step cut short runs again whole. */
export function recordTableStatements(ddl: ClickHouseDdl): string[] {
  return [
    ddl.createDatabase(),
    ...ddl.replacingTable({
      name: RECORD,
      columns: ['subgraph String', 'name String', "applied_at DateTime64(3, 'UTC') DEFAULT now64(3)"],
      version: 'applied_at',
      orderBy: '(subgraph, name)',
    }),
  ];
}

/**
 * Runs the steps of `subgraph` that the record does not hold, in their order, each recorded once
 * all its statements ran. The caller serialises runs across processes (the platform holds a
 * PostgreSQL advisory lock meanwhile): ClickHouse has no transactional DDL to do it.
 */
export async function migrateClickHouse(clickhouse: ClickHouse, subgraph: string, steps: ClickHouseMigration[], log: Logger): Promise<string[]> {
  const ddl = new ClickHouseDdl(clickhouse.database, clickhouse.cluster);
  for (const statement of recordTableStatements(ddl)) await clickhouse.command(statement);
  const done = new Set(
    (await clickhouse.query<{ name: string }>(`SELECT name FROM ${ddl.table(RECORD)} FINAL WHERE subgraph = {subgraph:String}`, { subgraph })).map((row) => row.name),
  );
  const ran: string[] = [];
  for (const step of [...steps].sort((a, b) => a.name.localeCompare(b.name)).filter((candidate) => !done.has(candidate.name))) {
    const started = Date.now();
    for (const statement of step.statements(ddl)) await clickhouse.command(statement);
    await clickhouse.command(`INSERT INTO ${ddl.table(RECORD)} (subgraph, name) VALUES ({subgraph:String}, {name:String})`, { subgraph, name: step.name });
    log.info({ subgraph, migration: step.name, ms: Date.now() - started }, 'clickhouse migration applied');
    ran.push(step.name);
  }
  return ran;
}
