import type { EntityManager } from '@mikro-orm/postgresql';
import { AppError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { Config } from '../../shared/config.js';
import { sha256Hex } from '../../shared/crypto.js';
import type { JsonObject } from '../../shared/validation.js';
import { redactSecrets, withDefaults } from '../destinations/destination-config.js';
import { DestinationError, type Delivery, type Destination } from '../destinations/destination.js';
import { destinationOf } from '../destinations/destinations.js';
import { BatchExport } from '../exports/batch-export.entity.js';
import { openSecrets } from '../exports/destination-secrets.js';
import { settleBackfill } from '../backfills/backfill.progress.js';
import { BatchExportRun } from './batch-export-run.entity.js';
import { queueRun } from './run.jobs.js';
import { LeaseLostError, RunLease } from './run.lease.js';
import { runSource } from './run.pages.js';
import { isSettled } from './run.settle.js';

export interface RunRuntime {
  em: EntityManager;
  log: Logger;
  config: Pick<Config, 'BATCH_EXPORT_MAX_ATTEMPTS' | 'BATCH_EXPORT_RETRY_DELAY_SECONDS' | 'BATCH_EXPORT_SETTLE_SECONDS'>;
  /** The leases this worker holds, released when it stops. */
  active: Set<RunLease>;
}

/** How long a run of an interval still being written waits before it looks again. */
const UNSETTLED_RETRY_MS = 5_000;

/**
 * Works one run: takes it (or leaves it to whoever holds it), reads its interval page by page into
 * its destination, and records the outcome under its lease. A destination's refusal fails the run
 * with the destination's words; a passing failure (the network, the destination's 5xx, this
 * database away) is tried again after a delay that doubles, until BATCH_EXPORT_MAX_ATTEMPTS.
 */
export async function executeRun(runtime: RunRuntime, runId: string): Promise<void> {
  const { em, log } = runtime;
  const databaseUrl = em.config.get('clientUrl')!;
  const run = await em.findOne(BatchExportRun, runId, { populate: ['batch_export'] });
  if (!run) return;
  if (!(await isSettled(em, run.data_interval_end, runtime.config.BATCH_EXPORT_SETTLE_SECONDS * 1000))) {
    if (run.status === 'Starting' || run.status === 'FailedRetryable') await queueRun(databaseUrl, runId, new Date(Date.now() + UNSETTLED_RETRY_MS));
    return;
  }
  const lease = await RunLease.take(em, runId);
  if (!lease) return;
  runtime.active.add(lease);
  const batchExport = run.batch_export.getEntity();
  const started = Date.now();
  let redact = (message: string) => message;
  try {
    const destination = destinationOf(batchExport.destination_type);
    if (!destination) throw new DestinationError(`Unknown destination type ${batchExport.destination_type}`, false);
    const config = withDefaults(destination.fields, { ...batchExport.destination_config, ...openSecrets(batchExport.destination_secrets) });
    redact = (message) => redactSecrets(message, destination.fields, config);
    const delivery = await deliver(runtime, run, batchExport, lease, destination, config);
    if (await lease.complete(delivery.records, delivery.bytes, delivery.cursor ?? null)) {
      log.info({ run: runId, batch_export: batchExport.id, records: delivery.records, bytes: delivery.bytes, ms: Date.now() - started }, 'batch export run completed');
    }
  } catch (error) {
    await recordFailure(runtime, lease, error, databaseUrl, redact);
  } finally {
    lease.stop();
    runtime.active.delete(lease);
  }
  if (run.backfill_id) await settleBackfill(em, databaseUrl, run.backfill_id);
}

async function deliver(runtime: RunRuntime, run: BatchExportRun, batchExport: BatchExport, lease: RunLease, destination: Destination, config: JsonObject): Promise<Delivery> {
  const window = { start: run.data_interval_start, end: run.data_interval_end, backfill: run.backfill_id !== null };
  const source = await runSource(runtime.em, runtime.log, batchExport, destination, window, config);
  return destination.deliver(
    {
      run: { id: run.id, data_interval_start: run.data_interval_start, data_interval_end: run.data_interval_end, attempt: lease.attempt },
      batchExport: { id: batchExport.id, name: batchExport.name, model: batchExport.model, environment_id: batchExport.environment_id },
      config,
      columns: source.columns,
      fingerprint: sha256Hex(JSON.stringify([batchExport.model, batchExport.hogql_query, batchExport.filters, batchExport.destination_config, source.columns])),
      cursor: lease.cursor,
      saveCursor: (cursor) => lease.saveCursor(cursor),
      signal: lease.signal,
      log: runtime.log.child({ run: run.id }),
    },
    source.pages(lease.signal),
  );
}

async function recordFailure(runtime: RunRuntime, lease: RunLease, error: unknown, databaseUrl: string, redact: (message: string) => string): Promise<void> {
  const { log, config } = runtime;
  if (error instanceof LeaseLostError || lease.signal.aborted) {
    log.info({ run: lease.runId }, 'batch export run left off: it was cancelled, deleted or taken over');
    return;
  }
  const described = describe(error);
  const { retryable } = described;
  const message = redact(described.message);
  if (retryable && lease.attempt < config.BATCH_EXPORT_MAX_ATTEMPTS) {
    const delayMs = Math.min(3600, config.BATCH_EXPORT_RETRY_DELAY_SECONDS * 2 ** (lease.attempt - 1)) * 1000;
    const retryAt = new Date(Date.now() + delayMs);
    if (await lease.retryLater(message, retryAt)) await queueRun(databaseUrl, lease.runId, retryAt);
    log.warn({ run: lease.runId, attempt: lease.attempt, err: message, retry_in_ms: delayMs }, 'batch export run failed; it will be tried again');
    return;
  }
  await lease.fail(message);
  log.warn({ run: lease.runId, attempt: lease.attempt, err: message }, 'batch export run failed');
}

/** A failure's words for the run's `latest_error`, and whether it is worth another try. */
function describe(error: unknown): { message: string; retryable: boolean } {
  if (error instanceof DestinationError) return { message: error.message, retryable: error.retryable };
  // The export's own query refused (a filter PostgreSQL cannot apply): another try changes nothing.
  if (error instanceof AppError) return { message: error.message, retryable: false };
  return { message: `An unexpected error has occurred: ${(error as Error).message ?? String(error)}`, retryable: true };
}
