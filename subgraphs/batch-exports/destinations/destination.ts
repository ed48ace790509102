import type { Logger } from '../../shared/logger.js';
import type { JsonObject } from '../../shared/validation.js';
import type { ExportColumn, ExportPage } from '../formats/export-columns.js';
import type { ConfigField } from './destination-config.js';

/** What a run hands its destination: the export, the interval, the config, and where it stood. */
export interface DeliveryContext {
  run: { id: string; data_interval_start: Date | null; data_interval_end: Date; attempt: number };
  batchExport: { id: string; name: string; model: string; environment_id: number };
  /** The whole config, defaults filled in and secrets opened. */
  config: JsonObject;
  columns: ExportColumn[];
  /** Names what the run exports (model, query, filters, the config's open fields): attempts of one run with another fingerprint export other rows. */
  fingerprint: string;
  /** What the destination kept of an earlier attempt of this run (null on the first). */
  cursor: JsonObject | null;
  /** Keeps the destination's progress with the run; refused (throws) when the run was taken over or stopped. */
  saveCursor(cursor: JsonObject): Promise<void>;
  signal: AbortSignal;
  log: Logger;
}

/** What a destination did with a run. */
export interface Delivery {
  records: number;
  bytes: number;
  /** What the run keeps of it (files written, chunks sent). */
  cursor?: JsonObject;
}

/** One check of a destination config (PostHog's destination tests). */
export interface TestStep {
  name: string;
  description: string;
  /** Throws a {@link DestinationError} whose message the caller reads when the check fails. */
  run(config: JsonObject, signal: AbortSignal): Promise<void>;
}

/**
 * A failure of the destination, in its own words. Retryable ones (the network, throttling, the
 * destination's own 5xx) are tried again with backoff; the others (refused credentials, a missing
 * bucket or table, a 4xx) fail the run at once.
 */
export class DestinationError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/** A host a destination's config names, and the config field that names it. */
export interface DestinationTarget {
  field: string;
  host: string;
  port: number;
}

/** A destination type: its config fields, the models it takes, how it delivers pages and how it is tested. */
export interface Destination {
  type: string;
  fields: readonly ConfigField[];
  models: readonly string[];
  /** Fields that say where the secrets go and how they travel: a change of one needs the secrets sent again. */
  targetFields: readonly string[];
  /** The hosts the config names (each checked against the outbound policy when the export is saved). */
  targets(config: JsonObject): DestinationTarget[];
  /** Whether it exports the columns of a `hogql_query` (else only its own default fields). */
  takesQuery: boolean;
  /** The default fields it exports of the events model, as a HogQL query. */
  eventsQuery: string;
  /** Checks across fields (a compression the format does not take); 400s name `destination`. */
  check(config: JsonObject): void;
  deliver(context: DeliveryContext, pages: AsyncIterable<ExportPage>): Promise<Delivery>;
  testSteps: readonly TestStep[];
}
