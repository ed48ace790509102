import type { EntityManager } from '@mikro-orm/postgresql';
import { ingestionFacade } from '../../../../subgraphs/ingestion/facade.js';
import type { ClickHouse } from '../../../../subgraphs/shared/clickhouse/clickhouse.js';

/** An environment's events counted on both sides once copied. */
export interface CountCheck {
  environment_id: number;
  postgres: number;
  /** Distinct uuids of the environment in ClickHouse, copied or ingested there. */
  clickhouse: number;
  /** Whether every one of PostgreSQL's events is in ClickHouse. */
  matches: boolean;
}

/**
 * Counts the environment's events on both sides: ClickHouse's distinct uuids (`uniqExact`, so a
 * row the engine has not collapsed yet counts once) against PostgreSQL's rows. Equal, the copy is
 * whole. More in ClickHouse: events ingested there since the switch are among them, and the
 * counts cannot tell whether one of PostgreSQL's is missing, so each of its events is looked for,
 * a page at a time. Fewer: some are missing.
 */
export async function checkCounts(em: EntityManager, clickhouse: ClickHouse, environmentId: number, pageSize: number): Promise<CountCheck> {
  const { eventsCopy } = ingestionFacade;
  const [postgres, inClickHouse] = await Promise.all([eventsCopy.postgresCount(em, environmentId), eventsCopy.clickhouseCount(clickhouse, environmentId)]);
  const matches = inClickHouse === postgres || (inClickHouse > postgres && (await eventsCopy.heldInClickHouse(em, clickhouse, environmentId, pageSize)) === postgres);
  return { environment_id: environmentId, postgres, clickhouse: inClickHouse, matches };
}

/** The line of an environment whose events ClickHouse does not all hold. */
export function mismatchLine(check: CountCheck): string {
  const besides = check.clickhouse > check.postgres ? ' (with events ingested there since the switch, and not all of PostgreSQL\'s)' : '';
  return `environment ${check.environment_id}: PostgreSQL holds ${check.postgres} events, ClickHouse ${check.clickhouse}${besides}; run again with --restart to copy what is missing`;
}
