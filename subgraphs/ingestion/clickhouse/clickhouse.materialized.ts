import { createHash } from 'node:crypto';
import type { ClickHouse } from '../../shared/clickhouse/clickhouse.js';
import { quoteIdentifier, quoteString, type ClickHouseDdl } from '../../shared/clickhouse/clickhouse.ddl.js';
import { jsonPropertySql } from '../../shared/clickhouse/clickhouse.json.js';
import { EVENTS } from './clickhouse.tables.js';

/**
 * Materialized property columns, as PostHog's `mat_*`: a top-level event property kept in a column
 * of its own, computed by ClickHouse from `properties` on every insert (and, once, for the rows
 * written before the column existed), so that a query reading the property reads a small column
 * instead of every event's JSON. The column's comment says which property it holds and whether
 * its old rows are filled yet (PostHog keeps the property in the comment too): the printer reads
 * only filled columns, the others are still being computed for old parts.
 */
export interface MaterializedColumn {
  property: string;
  /** `mat_$browser`. */
  column: string;
  /** Its old rows are computed: queries may read it. */
  ready: boolean;
}

const READY = 'column_materializer::properties::';
const FILLING = 'column_materializer::filling::properties::';

/** A property a column can hold: any text of up to 200 characters, none of them a control character. */
const PROPERTY = /^[^\p{Cc}]{1,200}$/u;

export function isMaterializableProperty(property: string): boolean {
  return PROPERTY.test(property);
}

/**
 * PostHog's name for the column of `property`: `mat_` and the property, each character other than
 * a letter, a digit or `$` written `_`; where that name is taken by another property's column, a
 * suffix of the property's hash keeps the two apart (the same property always gets the same name).
 */
export function materializedColumnName(property: string, taken: ReadonlySet<string>): string {
  const plain = `mat_${property.replace(/[^0-9a-zA-Z$]/g, '_')}`;
  return taken.has(plain) ? `${plain}_${createHash('sha256').update(property).digest('hex').slice(0, 6)}` : plain;
}

/** The column's definition: its value is the printer's read of the property from `properties`. */
export function materializedColumnDefinition(property: string, column: string): string {
  return `${quoteIdentifier(column)} Nullable(String) MATERIALIZED ${jsonPropertySql(`properties, ${quoteString(property)}`)} COMMENT ${quoteString(FILLING + property)}`;
}

/**
 * The statements that add the column: to the sharded table and to the Distributed one over it on a
 * cluster, both MATERIALIZED (as `CREATE TABLE … AS` copies it): inserts go through the
 * Distributed table, which then sends the shards no value for it and each shard computes its own.
 */
export function addMaterializedColumn(ddl: ClickHouseDdl, property: string, column: string): string[] {
  return ddl.addColumn(EVENTS, materializedColumnDefinition(property, column));
}

/** The statements that mark the column filled, once its mutation is done on every replica. */
export function markMaterializedColumnReady(ddl: ClickHouseDdl, property: string, column: string): string[] {
  return ddl.commentColumn(EVENTS, column, READY + property);
}

/** The materialized property columns of the events table as ClickHouse describes them now. */
export async function readMaterializedColumns(clickhouse: ClickHouse): Promise<MaterializedColumn[]> {
  const rows = await clickhouse.query<{ name: string; comment: string }>(
    `SELECT name, comment FROM system.columns WHERE database = {database:String} AND table = {table:String} AND startsWith(comment, 'column_materializer::') ORDER BY name`,
    { database: clickhouse.database, table: EVENTS.name },
  );
  return rows.flatMap(({ name, comment }): MaterializedColumn[] => {
    if (comment.startsWith(READY)) return [{ property: comment.slice(READY.length), column: name, ready: true }];
    if (comment.startsWith(FILLING)) return [{ property: comment.slice(FILLING.length), column: name, ready: false }];
    return [];
  });
}
