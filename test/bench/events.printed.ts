import 'reflect-metadata';
import { printHogQLForClickHouse } from '../../subgraphs/endpoints/hogql/clickhouse/clickhouse.printer.js';
import { prepareQuery } from '../../subgraphs/endpoints/queries/query.node.js';
import type { PrintedQuery } from './events.engine-task.js';
import { BENCH_QUERIES } from './events.queries.js';

/**
 * The queries as the platform printed them for ClickHouse, to run on the engine directly: the SQL
 * is the platform's own (its run's `hogql` debug key: with materialized columns where it read
 * them), the parameter values are those of printing the same HogQL again here (the run answers
 * the SQL, not its values). The printer binds every value in the order it meets it whether or not
 * a materialized column then stands for a property, so the names agree; a name of the platform's
 * SQL missing here is an error, never a silent other query.
 */
export async function printedQueries(environmentId: number, database: string, platformSql: Record<string, string>): Promise<PrintedQuery[]> {
  const printed: PrintedQuery[] = [];
  for (const query of BENCH_QUERIES) {
    const prepared = await prepareQuery(environmentId, { kind: 'HogQLQuery', query: query.hogql });
    const own = printHogQLForClickHouse(prepared.ast, { variables: {}, timezone: 'UTC' }, { environmentId, database });
    const sql = platformSql[query.name] || own.sql;
    const missing = [...sql.matchAll(/\{(\w+):/g)].map((match) => match[1]!).filter((name) => !(name in own.params));
    if (missing.length > 0) throw new Error(`${query.name}: the platform's SQL binds ${missing.join(', ')}, which printing it again here does not`);
    printed.push({ name: query.name, sql, params: own.params, settings: own.settings, limit: own.limit });
  }
  return printed;
}
