import type { Env } from './hogql.context.js';
import { HogQLError } from '../hogql.errors.js';
import type { Expr } from '../hogql.types.js';

/** The jsonb document an expression holds: a JSON column, or a property read out of one. */
export function documentOf(expr: Expr): string | null {
  if (expr.type === 'JSON') return expr.sql;
  return expr.json ?? null;
}

/**
 * A JSON path key: names as they are, array indexes from 1 as in ClickHouse (negative ones count
 * from the end, as jsonb's do).
 */
export function jsonKey(link: string | number): string {
  if (typeof link === 'string') return link;
  if (link === 0) throw new HogQLError('SQL indexes start from one, not from zero. E.g: array[1]');
  return String(link > 0 ? link - 1 : link);
}

/**
 * `properties.$browser`, `properties.a.b`, `properties['x']`: the value as PostHog reads a property,
 * text (a string's content, a number or boolean as written, an object as JSON), NULL when absent or
 * JSON null. The keys are bound, never written into the SQL.
 */
export function propertyExpr(base: Expr, path: (string | number)[], env: Env): Expr {
  const document = documentOf(base);
  if (document === null) throw new HogQLError(`Cannot access ${path.join('.')} on a ${base.type}`);
  const keys = path.map(jsonKey);
  const single = path.length === 1 && typeof path[0] === 'string';
  const key = single ? env.ctx.params.bind(keys[0], 'text') : env.ctx.params.bind(keys, 'text[]');
  const [asText, asJson] = single ? ['->>', '->'] : ['#>>', '#>'];
  return {
    sql: `(${document} ${asText} ${key})`,
    json: `(${document} ${asJson} ${key})`,
    type: 'String',
    nullable: true,
    property: true,
    aggregate: base.aggregate,
    // PostHog names the column after the property path: `$browser`, `a__b` for `properties.a.b`.
    name: [...(base.property && base.name ? [base.name] : []), ...path.map(String)].join('__'),
  };
}
