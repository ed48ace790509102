import { ValidationError } from '../../shared/errors.js';

/**
 * The variables of a TrendsQuery endpoint, as PostHog's: the breakdown property (its value filters
 * the run to that breakdown value), `date_from` and `date_to` (the date range).
 */
export function trendsVariables(node: Record<string, unknown>): string[] {
  const breakdown = breakdownOf(node);
  return [...(breakdown ? [breakdown] : []), 'date_from', 'date_to'];
}

/** The TrendsQuery a run computes: its variables and `filters_override` (date range, properties) applied. */
export function withTrendsOverrides(node: Record<string, unknown>, variables: Record<string, unknown>, filters: unknown): Record<string, unknown> {
  const next: Record<string, unknown> = { ...node };
  const range = { ...((node.dateRange as Record<string, unknown> | undefined) ?? {}) };
  const properties = [...((node.properties as unknown[] | undefined) ?? [])];
  if (filters !== null && filters !== undefined) {
    if (typeof filters !== 'object' || Array.isArray(filters)) throw new ValidationError('filters_override must be an object.', 'filters_override');
    const { date_from, date_to, properties: extra } = filters as Record<string, unknown>;
    if (date_from !== undefined) range.date_from = date_from;
    if (date_to !== undefined) range.date_to = date_to;
    if (extra !== undefined) {
      if (!Array.isArray(extra)) throw new ValidationError('filters_override.properties must be a list.', 'filters_override');
      properties.push(...extra);
    }
  }
  if (variables.date_from !== undefined) range.date_from = variables.date_from;
  if (variables.date_to !== undefined) range.date_to = variables.date_to;
  const breakdown = breakdownOf(node);
  if (breakdown && variables[breakdown] !== undefined) {
    properties.push({ type: 'event', key: breakdown, value: variables[breakdown], operator: 'exact' });
  }
  next.dateRange = range;
  if (properties.length > 0) next.properties = properties;
  return next;
}

function breakdownOf(node: Record<string, unknown>): string | null {
  const breakdown = (node.breakdownFilter as { breakdown?: unknown } | undefined)?.breakdown;
  return typeof breakdown === 'string' && breakdown ? breakdown : null;
}
