import type { OutputColumn } from './hogql.context.js';
import { HogQLError } from '../hogql.errors.js';
import type { TableDef } from './hogql.tables.js';
import type { Expr, HogQLNode } from '../hogql.types.js';

/** A lazily joined table, added to the FROM clause only once a field uses it. */
interface LazyJoin {
  alias: string;
  sql: string;
}

/** One FROM or JOIN item of a SELECT: a table, a subquery or a CTE, under an alias of ours. */
export class Source {
  private readonly lazy = new Map<string, LazyJoin>();

  constructor(
    /** The name fields qualify it with (its alias, else the table or CTE name); null for an anonymous subquery. */
    readonly name: string | null,
    /** Our alias in the SQL (`_t1`). */
    readonly alias: string,
    /** The SQL of the item before its alias: a view name or a parenthesised SELECT. */
    private readonly fromSql: string,
    readonly table: TableDef | null,
    /** The columns of a subquery or CTE. */
    readonly columns: OutputColumn[] | null,
    /** It stands on the optional side of an outer join: its fields may be NULL. */
    private isOptional: boolean,
  ) {}

  get optional(): boolean {
    return this.isOptional;
  }

  /** A later RIGHT or FULL JOIN puts the items before it on the optional side. */
  makeOptional(): void {
    this.isOptional = true;
  }

  /** The alias of the lazy join at `path` (e.g. `pdi.person`), adding it on first use. */
  lazyAlias(path: string, build: (alias: string) => string): string {
    let join = this.lazy.get(path);
    if (!join) {
      const alias = `${this.alias}_${path.replace(/\./g, '_')}`;
      join = { alias, sql: build(alias) };
      this.lazy.set(path, join);
    }
    return join.alias;
  }

  /** The FROM item: lazy joins go inside parentheses with it, so that a later ON clause sees them. */
  render(): string {
    const { own, lazy } = this.parts();
    return lazy.length === 0 ? own : `(${own} ${lazy.join(' ')})`;
  }

  /** The item under its alias, and its lazy joins in the order fields added them. */
  parts(): { own: string; lazy: string[] } {
    return { own: `${this.fromSql} AS "${this.alias}"`, lazy: [...this.lazy.values()].map((join) => join.sql) };
  }
}

/** A CTE a query may select from: compiled once, named by an alias of ours. */
interface SubqueryCte {
  alias: string;
  columns: OutputColumn[];
}

/** The CTEs visible to a query: its own and its parents'. `WITH expr AS name` CTEs are kept as expressions. */
export class CteScope {
  private readonly subqueries = new Map<string, SubqueryCte>();
  private readonly expressions = new Map<string, HogQLNode>();
  /** The WITH entries this scope renders (`"_w1" AS (SELECT ...)`). */
  readonly definitions: string[] = [];

  constructor(private readonly parent: CteScope | null) {}

  /** A scope for a nested query: it sees these CTEs and prints its own. */
  child(): CteScope {
    return new CteScope(this);
  }

  addSubquery(name: string, cte: SubqueryCte, sql: string): void {
    this.assertNew(name);
    this.subqueries.set(name, cte);
    this.definitions.push(`"${cte.alias}" AS (${sql})`);
  }

  addExpression(name: string, expr: HogQLNode): void {
    this.assertNew(name);
    this.expressions.set(name, expr);
  }

  subquery(name: string): SubqueryCte | undefined {
    return this.subqueries.get(name) ?? this.parent?.subquery(name);
  }

  expression(name: string): HogQLNode | undefined {
    return this.expressions.get(name) ?? this.parent?.expression(name);
  }

  /** The WITH clause for the definitions of this scope, with a trailing space; empty without any. */
  renderWith(): string {
    return this.definitions.length > 0 ? `WITH ${this.definitions.join(', ')} ` : '';
  }

  private assertNew(name: string): void {
    if (this.subqueries.has(name) || this.expressions.has(name)) throw new HogQLError(`Cannot redefine the CTE ${name}`);
  }
}

/** The names a SELECT resolves fields against: its FROM items, its select aliases, its CTEs. */
export class Scope {
  readonly sources: Source[] = [];
  readonly aliases = new Map<string, Expr>();
  /** Named windows (`WINDOW w AS (...)`). */
  readonly windows = new Map<string, HogQLNode>();
  /** Column CTEs being expanded, to refuse one that refers to itself. */
  readonly expanding = new Set<string>();

  constructor(readonly ctes: CteScope) {}

  addSource(source: Source): void {
    if (source.name !== null && this.sources.some((known) => known.name === source.name)) {
      throw new HogQLError(`Already have joined a table called "${source.name}". Can't redefine.`);
    }
    this.sources.push(source);
  }

  source(name: string): Source | undefined {
    return this.sources.find((source) => source.name === name);
  }

  addAlias(name: string, expr: Expr): void {
    if (this.aliases.has(name)) throw new HogQLError(`Cannot redefine an alias with the name: ${name}`);
    this.aliases.set(name, expr);
  }
}
