import type { ReplacingTable } from '../../shared/clickhouse/clickhouse.ddl.js';
import type { ClickHouseMigration } from '../../shared/clickhouse/clickhouse.migrate.js';
import { EVENTS, GROUPS, PERSON_DISTINCT_IDS, PERSONS } from './clickhouse.tables.js';

/*
 * The tables as the first step made them (later steps alter them; these stay as they ran).
 * The events store's tables on ClickHouse, shaped as PostHog's (`posthog/models/event/sql.py`,
 * `person/sql.py`, `group/sql.py`): `team_id` is the environment's id, properties are JSON text.
 * Events are written once by uuid: a retried batch carries the same deduplication token, and
 * rows of one sorting key that still meet are collapsed by the engine (newest `_timestamp`).
 */
const EVENTS_V1: ReplacingTable = {
  ...EVENTS,
  columns: [
    'uuid UUID',
    'event String',
    'properties String',
    "timestamp DateTime64(6, 'UTC')",
    'team_id Int64',
    'distinct_id String',
    // When the platform stored the event (HogQL's `created_at`, as on PostgreSQL).
    "created_at DateTime64(6, 'UTC')",
    // When ClickHouse took the row: what regular batch export runs read by, as PostHog's do.
    "inserted_at DateTime64(6, 'UTC') DEFAULT now64(6)",
    '_timestamp DateTime DEFAULT now()',
  ],
  version: '_timestamp',
  orderBy: '(team_id, toDate(timestamp), event, cityHash64(distinct_id), cityHash64(uuid))',
  partitionBy: 'toYYYYMM(timestamp)',
};

/** Persons, replaced by `version` (PostgreSQL's, raised by every change), `is_deleted` once gone. */
const PERSONS_V1: ReplacingTable = {
  ...PERSONS,
  columns: ['id UUID', "created_at DateTime64(3, 'UTC')", 'team_id Int64', 'properties String', 'is_identified Int8', 'is_deleted Int8 DEFAULT 0', 'version UInt64', '_timestamp DateTime DEFAULT now()'],
  version: 'version',
  orderBy: '(team_id, id)',
};

/** Which person a distinct id is (PostHog's `person_distinct_id2`), replaced by `version`. */
const PERSON_DISTINCT_IDS_V1: ReplacingTable = {
  ...PERSON_DISTINCT_IDS,
  columns: ['team_id Int64', 'distinct_id String', 'person_id UUID', 'is_deleted Int8 DEFAULT 0', 'version Int64', '_timestamp DateTime DEFAULT now()'],
  version: 'version',
  orderBy: '(team_id, distinct_id)',
};

/** Groups, replaced by `_timestamp` (the latest write of a group wins). */
const GROUPS_V1: ReplacingTable = {
  ...GROUPS,
  columns: ['group_type_index UInt8', 'group_key String', "created_at DateTime64(6, 'UTC')", 'team_id Int64', 'group_properties String', "_timestamp DateTime64(6, 'UTC')"],
  version: '_timestamp',
  orderBy: '(team_id, group_type_index, group_key)',
};

/** The ingestion subgraph's ClickHouse schema, step by step (run at start-up, recorded in `clickhouse_migrations`). */
export const clickhouseMigrations: ClickHouseMigration[] = [
  {
    name: '20261203_events_persons_groups',
    statements: (ddl) => [EVENTS_V1, PERSONS_V1, PERSON_DISTINCT_IDS_V1, GROUPS_V1].flatMap((table) => ddl.replacingTable(table)),
  },
  {
    // `/batch/` answers once its events are durable, as PostgreSQL's commit is: ClickHouse writes a
    // part to the page cache and answers unless told to fsync the part and its directory first.
    name: '20261204_events_fsync',
    statements: (ddl) => [ddl.modifySettings(EVENTS, { fsync_after_insert: 1, fsync_part_directory: 1 })],
  },
];
