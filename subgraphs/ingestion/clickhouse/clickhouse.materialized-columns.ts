import { FillFailedError, materializeProperty, type FillProgress, type MaterializeOutcome } from './clickhouse.materialize.js';
import { refreshMaterializedColumns } from './clickhouse.materialized-cache.js';
import { isMaterializableProperty, readMaterializedColumns, type MaterializedColumn } from './clickhouse.materialized.js';

export type { FillProgress, MaterializedColumn, MaterializeOutcome };

/** What `npm run events:materialize` uses of the events table's materialized property columns. */
export const MATERIALIZED_COLUMNS = {
  /** Whether a property name can be a column's (any text of up to 200 characters, no control character). */
  isMaterializable: isMaterializableProperty,
  /** The columns there are, filled or still filling. */
  read: readMaterializedColumns,
  /** Makes a property's column and fills it for every row (idempotent). */
  materialize: materializeProperty,
  /** Reads again which columns are filled, for this process's printing (which otherwise does so in the background, every minute). */
  refresh: refreshMaterializedColumns,
  /** ClickHouse stopped a fill with an error. */
  FillFailedError,
} as const;
