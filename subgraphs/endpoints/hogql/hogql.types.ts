/** A node of PostHog's HogQL AST, as `@posthog/hogql-parser` answers it (JSON). */
export interface HogQLNode {
  node: string;
  [key: string]: unknown;
}

/** The type the compiler infers for a result column (PostHog's constant types, by name). */
export type HogQLType =
  | 'String'
  | 'Integer'
  | 'Float'
  | 'Boolean'
  | 'DateTime'
  | 'Date'
  | 'UUID'
  | 'JSON'
  | 'Array'
  | 'Tuple'
  | 'Null'
  | 'Unknown';

/** A value given for a placeholder; `type` is the variable's declared type (PostHog's insight variable types). */
export interface VariableValue {
  value: unknown;
  type?: 'String' | 'Number' | 'Boolean' | 'List' | 'Date';
}

export interface CompileOptions {
  /** Values of the placeholders, by code name; `{name}` and `{variables.name}` both name `name`. */
  variables: Record<string, VariableValue>;
  /**
   * Outer row limit asked by the caller: the effective limit is min(asked, the query's own LIMIT),
   * DEFAULT_LIMIT with neither, never above MAX_LIMIT.
   */
  limit?: number;
  /** IANA zone in which dates are cut (toStartOfDay & co, toDate, dateDiff); 'UTC' by default. */
  timezone?: string;
}

export interface CompiledQuery {
  /** One SELECT statement (it may start with WITH), with placeholders $1..$n. */
  sql: string;
  /** The values of $1..$n, in order. */
  values: unknown[];
  /** Result columns in order: the name the user sees and the inferred type. The SQL names them `_c1`..`_cN`. */
  columns: { name: string; type: HogQLType }[];
  /** The effective outer limit. The SQL asks for one row more, so that the caller can tell whether more rows exist. */
  limit: number;
}

/** Types inside the compiler: result types plus what only lives within an expression. */
export type ExprType = HogQLType | 'Interval';

/** A compiled expression: its SQL and what the compiler knows about it. */
export interface Expr {
  sql: string;
  type: ExprType;
  /** Whether the value can be NULL; decides how comparisons treat NULL (PostHog's null-safe rules). */
  nullable: boolean;
  /** It contains an aggregation, so it may not appear in WHERE, GROUP BY or a JOIN constraint. */
  aggregate?: boolean;
  /** Text read out of a JSON document (a property): compared and added as a number when the other side is one. */
  property?: boolean;
  /** The same value as a jsonb document, when it was read out of one (for the JSONExtract functions). */
  json?: string;
  /** The value, when the expression is a constant or a placeholder's value. */
  literal?: { value: unknown };
  /** The items, when the expression is a tuple or array written out in the query (IN lists, has()). */
  items?: Expr[];
  /** An Interval of whole days or longer: a Date moved by it stays a Date. */
  wholeDays?: boolean;
  /** The SQL is a parenthesised SELECT (for IN and EXISTS). */
  subquery?: boolean;
  /** The column name PostHog gives a field (`event`, `$browser` for `properties.$browser`). */
  name?: string;
}
