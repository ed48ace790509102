import { and, call, compare, constant, field, or, tuple } from '../parse/hogql.builders.js';
import { HogQLError } from '../hogql.errors.js';
import type { HogQLNode } from '../hogql.types.js';

type Value = string | number | boolean;

/** Where a property filter of each type reads its key. */
const SOURCES: Record<string, string[]> = {
  event: ['properties'],
  person: ['person', 'properties'],
};

/** The property an event-or-person property filter (or a breakdown) names. */
export function propertyField(type: unknown, key: unknown, what: string): HogQLNode {
  const kind = typeof type === 'string' ? type : 'event';
  const path = Object.hasOwn(SOURCES, kind) ? SOURCES[kind] : undefined;
  if (!path) throw new HogQLError(`Unsupported ${what} type: ${kind} (event and person are supported)`);
  if (typeof key !== 'string' || key === '') throw new HogQLError(`A ${what} needs a property key`);
  return field(...path, key);
}

/**
 * PostHog's property filters as one condition: a list (all must hold), or a group
 * `{type: 'AND' | 'OR', values: [...]}` of filters and groups.
 */
export function propertiesCondition(filters: unknown): HogQLNode | null {
  if (filters === null || filters === undefined) return null;
  if (Array.isArray(filters)) return and(conditions(filters));
  if (isGroup(filters)) {
    const group = filters as { type?: unknown; values: unknown[] };
    return group.type === 'OR' ? or(conditions(group.values)) : and(conditions(group.values));
  }
  throw new HogQLError('properties must be a list of property filters or a property group');
}

function conditions(items: unknown[]): HogQLNode[] {
  return items.map(filterCondition).filter((item): item is HogQLNode => item !== null);
}

function isGroup(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Array.isArray((value as { values?: unknown }).values);
}

function filterCondition(filter: unknown): HogQLNode | null {
  if (isGroup(filter)) return propertiesCondition(filter);
  if (typeof filter !== 'object' || filter === null) throw new HogQLError('Each property filter must be an object');
  const { key, value, operator, type } = filter as Record<string, unknown>;
  const property = propertyField(type, key, 'property filter');
  return operatorCondition(typeof operator === 'string' ? operator : 'exact', property, value);
}

function values(value: unknown): Value[] {
  const list = Array.isArray(value) ? value : [value];
  if (!list.every((item) => typeof item === 'string' || typeof item === 'number' || typeof item === 'boolean')) {
    throw new HogQLError('Property filter values must be strings, numbers or booleans');
  }
  return list as Value[];
}

function single(value: unknown, operator: string): Value {
  const list = values(value);
  if (list.length !== 1) throw new HogQLError(`The ${operator} operator takes one value`);
  return list[0]!;
}

function number(value: unknown, operator: string): number {
  const raw = single(value, operator);
  const parsed = typeof raw === 'number' ? raw : Number(raw);
  if (typeof raw === 'boolean' || !Number.isFinite(parsed)) throw new HogQLError(`The ${operator} operator compares with a number`);
  return parsed;
}

/** PostHog's property operators, as property_to_expr writes them in HogQL. */
function operatorCondition(operator: string, property: HogQLNode, value: unknown): HogQLNode {
  const text = call('toString', [property]);
  switch (operator) {
    case 'exact':
    case 'is_not': {
      const list = values(value);
      const op = operator === 'exact' ? (list.length === 1 ? '==' : 'in') : list.length === 1 ? '!=' : 'not in';
      return compare(op, property, list.length === 1 ? constant(list[0]!) : tuple(list.map(constant)));
    }
    case 'icontains':
      return compare('ilike', text, constant(`%${String(single(value, operator))}%`));
    case 'not_icontains':
      return compare('not ilike', text, constant(`%${String(single(value, operator))}%`));
    case 'regex':
      return compare('=~', text, constant(String(single(value, operator))));
    case 'not_regex':
      return compare('!~', text, constant(String(single(value, operator))));
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte':
      return compare({ gt: '>', gte: '>=', lt: '<', lte: '<=' }[operator], property, constant(number(value, operator)));
    case 'is_set':
      return compare('!=', property, constant(null));
    case 'is_not_set':
      return compare('==', property, constant(null));
    default:
      throw new HogQLError(`Unsupported property operator: ${operator}`);
  }
}
