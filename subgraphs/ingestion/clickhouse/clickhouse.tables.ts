import type { ReplacingTable } from '../../shared/clickhouse/clickhouse.ddl.js';

/** A table of the events store on ClickHouse: its name, and how a cluster spreads its rows. */
export type TableRef = Pick<ReplacingTable, 'name' | 'shardBy'>;

/** Events, spread over a cluster's shards by distinct id as PostHog's: one person's events meet on one shard. */
export const EVENTS: TableRef = { name: 'events', shardBy: 'sipHash64(distinct_id)' };
/** Persons, on every node (events join them). */
export const PERSONS: TableRef = { name: 'person' };
/** Which person a distinct id is (PostHog's `person_distinct_id2`), on every node. */
export const PERSON_DISTINCT_IDS: TableRef = { name: 'person_distinct_id2' };
/** Groups, on every node. */
export const GROUPS: TableRef = { name: 'groups' };

/** Every table that holds an environment's rows (what deleting an environment removes). */
export const ENVIRONMENT_TABLES: TableRef[] = [EVENTS, PERSONS, PERSON_DISTINCT_IDS, GROUPS];
