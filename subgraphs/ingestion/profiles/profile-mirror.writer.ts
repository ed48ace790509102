import type { EntityManager } from '@mikro-orm/postgresql';
import type { ClickHouse } from '../../shared/clickhouse/clickhouse.js';
import { clickhouseErrorType } from '../../shared/clickhouse/clickhouse.errors.js';
import { clickhouseOf } from '../../shared/clickhouse/clickhouse.registry.js';
import type { Logger } from '../../shared/logger.js';
import { writeMirrorRows } from './profile-mirror.clickhouse.js';
import { mirrorEnvironments, takeMirrors } from './profile-mirror.queue.js';
import { mirrorRows } from './profile-mirror.repository.js';
import { forgetProfiles, lockProfiles } from './profile.queue.js';

/** How much of an environment's records one write takes (their JSON), at least one. */
const WRITE_BYTES = 8 * 1024 * 1024;
/** After a write failed, writes wait this long before the next try: every environment's when ClickHouse is away, else the one's. */
const FAILED_PAUSE_MS = 5000;

/**
 * Writes the rows profile passes recorded into ClickHouse's mirror tables: right after a pass
 * commits, and on every sweep for what an earlier write left (ClickHouse was away, or the process
 * stopped in between). A failed write never fails the pass, whose PostgreSQL rows stand: its
 * record stays, and the writer pauses a moment so that a ClickHouse that is away does not slow
 * every pass down. Where events live on PostgreSQL it does nothing, and asks nothing.
 */
export class ProfileMirrorWriter {
  private pausedUntil = 0;
  private readonly failedUntil = new Map<number, number>();

  constructor(private readonly log: Logger) {}

  /** Writes the environment's records. A drain (whose caller reads the mirror next) does not wait out the pause. */
  async environment(em: EntityManager, environmentId: number, draining: boolean): Promise<void> {
    const clickhouse = clickhouseOf(em);
    if (!clickhouse || (!draining && (this.paused() || (this.failedUntil.get(environmentId) ?? 0) > Date.now()))) return;
    try {
      await mirrorQueued(em, clickhouse, environmentId, draining);
      this.failedUntil.delete(environmentId);
    } catch (error) {
      // A statement ClickHouse refused is about the environment's rows, and the others go on; any
      // other failure (away, throttling, no answer) is ClickHouse's, and every environment waits.
      if (clickhouseErrorType(error) !== null) this.failedUntil.set(environmentId, Date.now() + FAILED_PAUSE_MS);
      else this.pausedUntil = Date.now() + FAILED_PAUSE_MS;
      this.log.error({ err: error, environment_id: environmentId }, 'writing persons and groups to ClickHouse failed; kept in PostgreSQL and written again shortly');
    }
  }

  /** Writes what earlier writes left, environment by environment. */
  async sweep(em: EntityManager, stopped: () => boolean, draining: boolean): Promise<void> {
    if (!clickhouseOf(em) || (!draining && this.paused())) return;
    for (const environmentId of await mirrorEnvironments(em)) {
      if (stopped() || (!draining && this.paused())) return;
      await this.environment(em.fork(), environmentId, draining);
    }
  }

  private paused(): boolean {
    return this.pausedUntil > Date.now();
  }
}

/**
 * Writes an environment's records and removes them, a share at a time, each under the
 * environment's profile lock: a pass or a deletion of the environment waits for the write in
 * progress, so that no row reaches ClickHouse after its environment's rows were deleted there.
 * Without `wait`, an environment another process holds is left to that process.
 */
async function mirrorQueued(em: EntityManager, clickhouse: ClickHouse, environmentId: number, wait: boolean): Promise<void> {
  let written: number;
  do {
    written = await em.transactional(async (tx) => {
      if (!(await lockProfiles(tx, environmentId, wait))) return 0;
      const { ids, mirror } = await takeMirrors(tx, environmentId, WRITE_BYTES);
      if (ids.length > 0) {
        await writeMirrorRows(clickhouse, await mirrorRows(tx, environmentId, mirror));
        await forgetProfiles(tx, ids);
      }
      return ids.length;
    });
  } while (written > 0);
}
