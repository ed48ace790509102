import type { CompileBudget } from './hogql.budget.js';
import type { ParamBinder } from './hogql.params.js';
import type { CteScope, Scope } from './hogql.scope.js';
import type { ExprType, HogQLNode, VariableValue } from '../hogql.types.js';

/** A column a SELECT answers: the user's name, the SQL name we gave it (`_cN`) and what it holds. */
export interface OutputColumn {
  name: string;
  sqlName: string;
  type: ExprType;
  nullable: boolean;
  /** Text read out of JSON (see Expr.property): it keeps comparing as a number through the subquery. */
  property?: boolean;
}

export interface CompiledSelect {
  sql: string;
  columns: OutputColumn[];
}

/** What lives for one compilation: the values bound, the variables, the zone, fresh aliases and the work done. */
export interface CompileContext {
  params: ParamBinder;
  variables: Record<string, VariableValue>;
  timezone: string;
  /** A new alias of ours (`_t1`, `_w1`): tables and CTEs never take a name from the query. */
  nextAlias(prefix: 't' | 'w'): string;
  /** Counts the nodes compiled and the SQL written; throws QueryTooComplexError past either bound. */
  budget: CompileBudget;
  /** Compiles a nested SELECT or UNION (a subquery, a CTE); injected so that expressions need not import the SELECT compiler. */
  compileQuery(node: HogQLNode, ctes: CteScope): CompiledSelect;
}

/** Where an expression stands: clauses differ in what they accept (aggregations, NULL handling). */
export type Clause = 'select' | 'where' | 'join' | 'group_by' | 'having' | 'order_by' | 'window';

export interface Env {
  ctx: CompileContext;
  scope: Scope;
  clause: Clause;
  /** Inside the arguments of an aggregation: another one there is an error. */
  inAggregate: boolean;
}

/** The team's zone as a bound parameter (one number for the whole query). */
export function zoneSql(env: Env): string {
  return env.ctx.params.bind(env.ctx.timezone, 'text');
}
