import { ingestionFacade } from '../../../ingestion/facade.js';
import type { HogQLType } from '../hogql.types.js';

/** The views ingestion keeps for queries (its facade's query surface): one team's rows each. */
const { views } = ingestionFacade.querySurface;

export interface ColumnDef {
  name: string;
  type: HogQLType;
}

/** A table reached through a column, joined only when a query uses it (PostHog's lazy joins). */
export interface LazyJoinDef {
  name: string;
  table: string;
  /** The column of this table that the join matches... */
  from: string;
  /** ...with this column of the joined table. */
  to: string;
}

/** A name that stands for a path through lazy joins (`person_id` is `pdi.person_id`). */
export interface VirtualFieldDef {
  name: string;
  path: string[];
}

export interface TableDef {
  name: string;
  /** The view that holds the team's rows; it filters by team itself. */
  sql: string;
  /** Real columns, in the order `*` expands them. */
  columns: ColumnDef[];
  joins: LazyJoinDef[];
  virtual: VirtualFieldDef[];
}

const PERSONS: TableDef = {
  name: 'persons',
  sql: views.persons,
  columns: [
    { name: 'id', type: 'UUID' },
    { name: 'created_at', type: 'DateTime' },
    { name: 'properties', type: 'JSON' },
    { name: 'is_identified', type: 'Boolean' },
  ],
  joins: [],
  virtual: [],
};

const PERSON_DISTINCT_IDS: TableDef = {
  name: 'person_distinct_ids',
  sql: views.person_distinct_ids,
  columns: [
    { name: 'distinct_id', type: 'String' },
    { name: 'person_id', type: 'UUID' },
  ],
  joins: [{ name: 'person', table: 'persons', from: 'person_id', to: 'id' }],
  virtual: [],
};

const EVENTS: TableDef = {
  name: 'events',
  sql: views.events,
  columns: [
    { name: 'uuid', type: 'UUID' },
    { name: 'event', type: 'String' },
    { name: 'properties', type: 'JSON' },
    { name: 'timestamp', type: 'DateTime' },
    { name: 'distinct_id', type: 'String' },
    { name: 'created_at', type: 'DateTime' },
  ],
  joins: [{ name: 'pdi', table: 'person_distinct_ids', from: 'distinct_id', to: 'distinct_id' }],
  virtual: [
    { name: 'person_id', path: ['pdi', 'person_id'] },
    { name: 'person', path: ['pdi', 'person'] },
  ],
};

const GROUPS: TableDef = {
  name: 'groups',
  sql: views.groups,
  columns: [
    { name: 'index', type: 'Integer' },
    { name: 'key', type: 'String' },
    { name: 'created_at', type: 'DateTime' },
    { name: 'updated_at', type: 'DateTime' },
    { name: 'properties', type: 'JSON' },
  ],
  joins: [],
  virtual: [],
};

/** The tables a query may read, by PostHog's names. Nothing else resolves. */
const TABLES = new Map<string, TableDef>([EVENTS, PERSONS, PERSON_DISTINCT_IDS, GROUPS].map((table) => [table.name, table]));

export function findTable(name: string): TableDef | undefined {
  return TABLES.get(name);
}

export function tableNames(): string[] {
  return [...TABLES.keys()];
}

export function columnOf(table: TableDef, name: string): ColumnDef | undefined {
  return table.columns.find((column) => column.name === name);
}

/** What a name means on a table: a column, a lazy join or a virtual field. */
export function memberOf(table: TableDef, name: string): ColumnDef | LazyJoinDef | VirtualFieldDef | undefined {
  return columnOf(table, name) ?? table.joins.find((join) => join.name === name) ?? table.virtual.find((field) => field.name === name);
}
