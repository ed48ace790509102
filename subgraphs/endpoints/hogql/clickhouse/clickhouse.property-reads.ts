import type { EntityManager } from '@mikro-orm/postgresql';
import { Endpoint } from '../../endpoints/endpoint.entity.js';
import { prepareQuery } from '../../queries/query.node.js';
import { isKind, isNode } from '../parse/hogql.ast.js';
import type { HogQLNode } from '../hogql.types.js';

/** A top-level event property and how many saved endpoints read it. */
export interface PropertyReads {
  property: string;
  /** Active saved endpoints whose query reads it. */
  endpoints: number;
  /** Environments those endpoints belong to. */
  environments: number;
}

/** Tables a field may name before `properties` that are not the events table (the lazy joins to persons and groups). */
const OTHER_TABLES = new Set(['person', 'persons', 'pdi', 'person_distinct_ids', 'groups', 'group_0', 'group_1', 'group_2', 'group_3', 'group_4']);

/**
 * The top-level event properties a HogQL AST reads: `properties.$browser`, `e.properties.$browser`,
 * `properties['$browser']`, anywhere in the query. A TrendsQuery is read through its HogQL, so its
 * series' filters, math properties and breakdown count alike. Read from the text of the query, not
 * its resolved names: a field of a CTE or a subquery named `properties` counts too, which only
 * makes a column suggested that the printer may read less often.
 */
export function eventPropertiesRead(ast: HogQLNode): Set<string> {
  const found = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (!isNode(value)) {
      if (typeof value === 'object' && value !== null) Object.values(value).forEach(visit);
      return;
    }
    if (isKind(value, 'Field')) {
      const key = keyAfterProperties(value.chain as unknown[]);
      if (key !== null) found.add(key);
    }
    if (isKind(value, 'ArrayAccess') && isKind(value.array, 'Field') && isKind(value.property, 'Constant') && typeof (value.property as HogQLNode).value === 'string') {
      const chain = (value.array as HogQLNode).chain as unknown[];
      if (keyAfterProperties([...chain, (value.property as HogQLNode).value]) !== null) found.add(String((value.property as HogQLNode).value));
    }
    for (const [key, nested] of Object.entries(value)) if (key !== 'node') visit(nested);
  };
  visit(ast);
  return found;
}

function keyAfterProperties(chain: unknown[]): string | null {
  if (!Array.isArray(chain)) return null;
  const at = chain[0] === 'properties' ? 0 : chain[1] === 'properties' && typeof chain[0] === 'string' && !OTHER_TABLES.has(chain[0]) ? 1 : -1;
  const key = at >= 0 ? chain[at + 1] : undefined;
  return typeof key === 'string' ? key : null;
}

/**
 * The top-level event properties the installation's active saved endpoints read (HogQL queries
 * and TrendsQuery series, breakdowns and filters), most-read first: what is worth a materialized
 * column. A query that no longer compiles is left out.
 */
export async function endpointPropertyReads(em: EntityManager): Promise<PropertyReads[]> {
  const endpoints = await em.find(Endpoint, { is_active: true }, { fields: ['environment_id', 'query'], orderBy: { environment_id: 'asc', name: 'asc' } });
  const reads = new Map<string, { endpoints: number; environments: Set<number> }>();
  for (const endpoint of endpoints) {
    const ast = await prepareQuery(endpoint.environment_id, endpoint.query).then(
      (prepared) => prepared.ast,
      () => null,
    );
    if (!ast) continue;
    for (const property of eventPropertiesRead(ast)) {
      const entry = reads.get(property) ?? { endpoints: 0, environments: new Set<number>() };
      entry.endpoints += 1;
      entry.environments.add(endpoint.environment_id);
      reads.set(property, entry);
    }
  }
  return [...reads]
    .map(([property, entry]) => ({ property, endpoints: entry.endpoints, environments: entry.environments.size }))
    .sort((a, b) => b.endpoints - a.endpoints || b.environments - a.environments || a.property.localeCompare(b.property));
}
