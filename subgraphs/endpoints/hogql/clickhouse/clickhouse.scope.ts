import type { OutputColumn, Printed } from './clickhouse.context.js';
import type { TableDef } from '../compile/hogql.tables.js';
import type { HogQLNode } from '../hogql.types.js';

/** One FROM or JOIN item, under an alias of ours, with the lazy joins its fields added. */
export class PrintSource {
  private readonly lazy = new Map<string, { alias: string; sql: string }>();

  constructor(
    readonly name: string | null,
    readonly alias: string,
    private readonly fromSql: string,
    readonly table: TableDef | null,
    readonly columns: OutputColumn[] | null,
    public optional: boolean,
  ) {}

  lazyAlias(path: string, build: (alias: string) => string): string {
    let join = this.lazy.get(path);
    if (!join) {
      const alias = `${this.alias}_${path.replace(/\./g, '_')}`;
      join = { alias, sql: build(alias) };
      this.lazy.set(path, join);
    }
    return join.alias;
  }

  /** The item and, after it, its lazy joins (ClickHouse joins left to right; a later ON sees them). */
  render(): { own: string; lazy: string[] } {
    return { own: `${this.fromSql} AS "${this.alias}"`, lazy: [...this.lazy.values()].map((join) => join.sql) };
  }
}

/** The CTEs a query sees: subqueries printed once under an alias of ours, column CTEs kept as expressions. */
export class PrintCtes {
  private readonly subqueries = new Map<string, { alias: string; columns: OutputColumn[] }>();
  private readonly expressions = new Map<string, HogQLNode>();
  readonly definitions: string[] = [];

  constructor(private readonly parent: PrintCtes | null) {}

  child(): PrintCtes {
    return new PrintCtes(this);
  }

  addSubquery(name: string, cte: { alias: string; columns: OutputColumn[] }, sql: string): void {
    this.subqueries.set(name, cte);
    this.definitions.push(`"${cte.alias}" AS (${sql})`);
  }

  addExpression(name: string, expr: HogQLNode): void {
    this.expressions.set(name, expr);
  }

  subquery(name: string): { alias: string; columns: OutputColumn[] } | undefined {
    return this.subqueries.get(name) ?? this.parent?.subquery(name);
  }

  expression(name: string): HogQLNode | undefined {
    return this.expressions.get(name) ?? this.parent?.expression(name);
  }

  renderWith(): string {
    return this.definitions.length > 0 ? `WITH ${this.definitions.join(', ')} ` : '';
  }
}

/** The names a SELECT resolves fields against. The PostgreSQL compile has checked them; this only finds them. */
export class PrintScope {
  readonly sources: PrintSource[] = [];
  readonly aliases = new Map<string, Printed>();
  readonly windows = new Map<string, HogQLNode>();

  constructor(readonly ctes: PrintCtes) {}

  source(name: string): PrintSource | undefined {
    return this.sources.find((source) => source.name === name);
  }
}
