import type { OutputColumn } from '../compile/hogql.context.js';
import type { ClickHouseParams } from './clickhouse.params.js';
import type { ExprType, HogQLNode, VariableValue } from '../hogql.types.js';
import type { PrintScope, PrintCtes } from './clickhouse.scope.js';

/**
 * A printed expression: its ClickHouse SQL and what the printer knows of it, as the PostgreSQL
 * compiler's Expr does (the same types decide the same conversions, so both engines answer alike).
 */
export interface Printed {
  sql: string;
  type: ExprType;
  nullable: boolean;
  /** Text read out of JSON: compared and added as a number when the other side is one. */
  property?: boolean;
  /** Where a property was read: the JSON text and the keys to it (for the JSONExtract functions and deeper reads). */
  document?: { text: string; keys: string[] };
  literal?: { value: unknown };
  items?: Printed[];
  aggregate?: boolean;
  /** An Interval of whole days or more: a Date moved by it stays a Date. */
  wholeDays?: boolean;
  /** The column name PostHog gives a field (`event`, `$browser` for `properties.$browser`). */
  name?: string;
  /**
   * Set on the events table's `properties`: the SQL of the materialized columns that hold some of
   * its top-level keys (`$browser` → `"_t1".`mat_$browser``), read instead of the JSON.
   */
  columns?: ReadonlyMap<string, string>;
}

/** What lives for one printing: the values bound, the variables, the zone, the team and where its tables are. */
export interface PrintContext {
  params: ClickHouseParams;
  variables: Record<string, VariableValue>;
  timezone: string;
  /** The database of the events store's tables. */
  database: string;
  /** `{pN:Int64}` of the environment: every table reference is filtered by it. */
  team: string;
  nextAlias(prefix: 't' | 'w'): string;
  printQuery(node: HogQLNode, ctes: PrintCtes): { sql: string; columns: OutputColumn[] };
}

export type PrintClause = 'select' | 'where' | 'join' | 'group_by' | 'having' | 'order_by' | 'window';

export interface PrintEnv {
  ctx: PrintContext;
  scope: PrintScope;
  clause: PrintClause;
  /** The zone texts are read in, when a call names one (`toDateTime(x, 'Asia/Tokyo')`); the team's otherwise. */
  zoneSql?: string;
}

/** The team's zone (or the one the call names) as a bound parameter. */
export function zone(env: PrintEnv): string {
  return env.zoneSql ?? env.ctx.params.bind(env.ctx.timezone, 'String');
}
