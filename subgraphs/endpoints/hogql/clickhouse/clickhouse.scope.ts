import type { OutputColumn } from '../compile/hogql.context.js';
import type { Source } from '../compile/hogql.scope.js';
import type { HogQLNode } from '../hogql.types.js';
import type { Printed } from './clickhouse.context.js';

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
  /** The FROM items: the compiler's, rendered here as ClickHouse joins them (Source.parts). */
  readonly sources: Source[] = [];
  readonly aliases = new Map<string, Printed>();
  readonly windows = new Map<string, HogQLNode>();

  constructor(readonly ctes: PrintCtes) {}

  source(name: string): Source | undefined {
    return this.sources.find((source) => source.name === name);
  }
}
