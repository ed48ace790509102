/** A table whose rows a later row of the same sorting key replaces (ClickHouse's ReplacingMergeTree). */
export interface ReplacingTable {
  name: string;
  /** `name Type [DEFAULT …]` each. */
  columns: string[];
  /** The column whose greatest value wins among rows of one key (a version, or the time written). */
  version: string;
  orderBy: string;
  partitionBy?: string;
  /**
   * Set for a table spread over the cluster's shards (events, by this expression); unset, every
   * replica holds every row (persons, distinct ids and groups, which events are joined with).
   */
  shardBy?: string;
  /** Table settings beyond the deduplication window. */
  settings?: Record<string, string | number>;
}

/**
 * Inserts whose deduplication token was seen among this many latest blocks insert nothing: a
 * retried batch is dropped whole (replicated tables keep such a window by default; a table on one
 * server keeps none unless asked).
 */
export const DEDUPLICATION_WINDOW = 10_000;

/**
 * The DDL of the events store, on one server or on a cluster (CLICKHOUSE_CLUSTER). On a cluster,
 * as PostHog lays its tables out: a sharded table is `sharded_<name>` on every shard, a
 * Replicated engine per shard, and `<name>` the Distributed table over them that every query and
 * insert names; an unsharded one is replicated to every node. Every statement runs `ON CLUSTER`.
 */
export class ClickHouseDdl {
  constructor(
    readonly database: string,
    readonly cluster: string | null = null,
  ) {}

  /** ` ON CLUSTER <name>` where there is a cluster, else nothing. */
  get onCluster(): string {
    return this.cluster ? ` ON CLUSTER ${this.cluster}` : '';
  }

  /** `<database>.<table>`: what every statement names. */
  table(name: string): string {
    return `${this.database}.${name}`;
  }

  createDatabase(): string {
    return `CREATE DATABASE IF NOT EXISTS ${this.database}${this.onCluster}`;
  }

  /** The statements that make `table`: one on a server, the local tables and the Distributed one on a cluster. */
  replacingTable(table: ReplacingTable): string[] {
    const local = this.cluster && table.shardBy ? `sharded_${table.name}` : table.name;
    const statements = [
      [
        `CREATE TABLE IF NOT EXISTS ${this.table(local)}${this.onCluster} (${table.columns.join(', ')})`,
        `ENGINE = ${this.replacingEngine(local, table)}`,
        table.partitionBy ? `PARTITION BY ${table.partitionBy}` : '',
        `ORDER BY ${table.orderBy}`,
        `SETTINGS ${settingsText(this.tableSettings(table))}`,
      ]
        .filter(Boolean)
        .join(' '),
    ];
    if (this.cluster && table.shardBy) {
      statements.push(
        `CREATE TABLE IF NOT EXISTS ${this.table(table.name)}${this.onCluster} AS ${this.table(local)} ENGINE = Distributed(${this.cluster}, ${this.database}, ${local}, ${table.shardBy})`,
      );
    }
    return statements;
  }

  /** Adds a column to a table made by {@link replacingTable}: its local tables and, on a cluster, the Distributed one. */
  addColumn(table: Pick<ReplacingTable, 'name' | 'shardBy'>, column: string): string[] {
    return this.tablesOf(table).map((name) => `ALTER TABLE ${this.table(name)}${this.onCluster} ADD COLUMN IF NOT EXISTS ${column}`);
  }

  /** Sets a column's comment, on a table made by {@link replacingTable} and, on a cluster, its local tables too. */
  commentColumn(table: Pick<ReplacingTable, 'name' | 'shardBy'>, column: string, comment: string): string[] {
    return this.tablesOf(table).map((name) => `ALTER TABLE ${this.table(name)}${this.onCluster} COMMENT COLUMN ${quoteIdentifier(column)} ${quoteString(comment)}`);
  }

  /**
   * Computes a MATERIALIZED column for the parts written before it existed: a mutation of the
   * tables that hold the rows, which ClickHouse runs in the background (system.mutations follows it).
   */
  materializeColumn(table: Pick<ReplacingTable, 'name' | 'shardBy'>, column: string): string {
    return `ALTER TABLE ${this.storageOf(table)}${this.onCluster} MATERIALIZE COLUMN ${quoteIdentifier(column)}`;
  }

  /** Where a system table is read for every node: each replica of the cluster, or this server. */
  systemTable(name: string): string {
    return this.cluster ? `clusterAllReplicas(${this.cluster}, system.${name})` : `system.${name}`;
  }

  /** Sets table settings of a table made by {@link replacingTable}, on the tables that hold its rows. */
  modifySettings(table: Pick<ReplacingTable, 'name' | 'shardBy'>, settings: Record<string, string | number>): string {
    return `ALTER TABLE ${this.storageOf(table)}${this.onCluster} MODIFY SETTING ${settingsText(settings)}`;
  }

  /** The table that holds the rows (the sharded one on a cluster): what a mutation names. */
  storageOf(table: Pick<ReplacingTable, 'name' | 'shardBy'>): string {
    return this.table(this.cluster && table.shardBy ? `sharded_${table.name}` : table.name);
  }

  /** The local tables first, then the Distributed one over them (a column is added below before above). */
  private tablesOf(table: Pick<ReplacingTable, 'name' | 'shardBy'>): string[] {
    return this.cluster && table.shardBy ? [`sharded_${table.name}`, table.name] : [table.name];
  }

  private replacingEngine(local: string, table: ReplacingTable): string {
    if (!this.cluster) return `ReplacingMergeTree(${table.version})`;
    // A sharded table's replicas are per shard; an unsharded one has every node as a replica of one.
    const shard = table.shardBy ? '{shard}' : 'noshard';
    return `ReplicatedReplacingMergeTree('/clickhouse/tables/${shard}/${this.database}.${local}', '{replica}', ${table.version})`;
  }

  private tableSettings(table: ReplacingTable): Record<string, string | number> {
    const window: Record<string, number> = { [this.cluster ? 'replicated_deduplication_window' : 'non_replicated_deduplication_window']: DEDUPLICATION_WINDOW };
    return { ...window, ...table.settings };
  }
}

function settingsText(settings: Record<string, string | number>): string {
  return Object.entries(settings)
    .map(([name, value]) => `${name} = ${typeof value === 'number' ? value : `'${value}'`}`)
    .join(', ');
}

/** A ClickHouse string literal of any text: backslashes and quotes escaped, as its lexer reads them. */
export function quoteString(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** A ClickHouse identifier of any text (`mat_$browser`), in backquotes. */
export function quoteIdentifier(name: string): string {
  return `\`${name.replace(/\\/g, '\\\\').replace(/`/g, '\\`')}\``;
}
