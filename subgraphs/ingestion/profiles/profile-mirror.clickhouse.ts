import { createHash } from 'node:crypto';
import type { ClickHouse } from '../../shared/clickhouse/clickhouse.js';
import { ClickHouseDdl } from '../../shared/clickhouse/clickhouse.ddl.js';
import { GROUPS, PERSON_DISTINCT_IDS, PERSONS, type TableRef } from '../clickhouse/clickhouse.tables.js';
import type { MirrorRows } from './profile-mirror.repository.js';

/**
 * A write that hangs (a server that takes the connection and never answers) gives up after this:
 * the environment's profile passes wait for the mirror's lock meanwhile.
 */
const WRITE_TIMEOUT_MS = 10_000;

/**
 * Writes the rows into ClickHouse's mirror tables, one synchronous insert a table. Rows only
 * ever add: each carries its version, and the ReplacingMergeTree keeps the greatest of a key, so
 * rows written twice, or an older one after a newer one, leave the newest standing.
 *
 * Each insert names its own deduplication token, made of its rows: a chDB connection keeps the
 * token the last events insert set, and every later insert carrying it into a table that saw it
 * once would be dropped as a duplicate. Rows written again exactly as before are still dropped,
 * which changes nothing.
 */
export async function writeMirrorRows(clickhouse: ClickHouse, rows: MirrorRows): Promise<void> {
  const ddl = new ClickHouseDdl(clickhouse.database, clickhouse.cluster);
  const insert = async (table: TableRef, values: object[]) => {
    if (values.length === 0) return;
    const text = JSON.stringify(values);
    await clickhouse.insert({
      table: ddl.table(table.name),
      format: 'JSONEachRow',
      values,
      clickhouse_settings: { insert_deduplicate: 1, insert_deduplication_token: createHash('sha256').update(text).digest('hex') },
      abort_signal: AbortSignal.timeout(WRITE_TIMEOUT_MS),
    });
  };
  await insert(PERSONS, rows.persons);
  await insert(PERSON_DISTINCT_IDS, rows.distinct_ids);
  await insert(GROUPS, rows.groups);
}
