import { quoteIdentifier } from '../../shared/clickhouse/clickhouse.ddl.js';
import { readyMaterializedColumns } from './clickhouse.materialized-cache.js';

/**
 * The tables HogQL reads on ClickHouse, by PostHog's names (the query views' counterparts), each a
 * subquery of the events store's table filtered by the environment (`team`, the SQL of a bound
 * parameter): the printer writes one for every table reference, so no part of a query can read
 * another team's rows. Ingestion owns these tables; other subgraphs reach this through the facade.
 * An alias never takes the name of a column of its own FROM (ClickHouse would read the alias for
 * the column), hence the inner names.
 * The columns are those of the PostgreSQL views (compile/hogql.tables.ts), named alike. Person
 * and group rows are kept as ReplacingMergeTree versions: the latest version of each is read.
 * The events subquery also gives the filled materialized property columns (`mat_$browser`), which
 * the printer reads for those properties (clickhouse.materialized.ts).
 */
export function clickhouseQueryTable(name: string, database: string, team: string): string {
  switch (name) {
    case 'events':
      return `(SELECT uuid, event, properties, timestamp, distinct_id, created_at${[...readyMaterializedColumns(database).values()].map((column) => `, ${quoteIdentifier(column)}`).join('')} FROM ${database}.events WHERE team_id = ${team})`;
    case 'persons':
      return `(SELECT id, created AS created_at, props AS properties, toBool(identified) AS is_identified FROM (SELECT id, argMax(created_at, version) AS created, argMax(properties, version) AS props, argMax(is_identified, version) AS identified, argMax(is_deleted, version) AS deleted FROM ${database}.person WHERE team_id = ${team} GROUP BY id) WHERE deleted = 0)`;
    case 'person_distinct_ids':
      return `(SELECT distinct_id, person AS person_id FROM (SELECT distinct_id, argMax(person_id, version) AS person, argMax(is_deleted, version) AS deleted FROM ${database}.person_distinct_id2 WHERE team_id = ${team} GROUP BY distinct_id) WHERE deleted = 0)`;
    case 'groups':
      return `(SELECT group_type_index AS index, group_key AS key, created AS created_at, updated AS updated_at, props AS properties FROM (SELECT group_type_index, group_key, argMax(created_at, _timestamp) AS created, max(_timestamp) AS updated, argMax(group_properties, _timestamp) AS props FROM ${database}.groups WHERE team_id = ${team} GROUP BY group_type_index, group_key))`;
    default:
      throw new Error(`No ClickHouse table for ${name}`);
  }
}
