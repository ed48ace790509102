import type { EntityManager } from '@mikro-orm/postgresql';
import { clickhouseOf } from '../../shared/clickhouse/clickhouse.registry.js';
import { watchProfileQueue } from '../../shared/metrics.js';
import { resubscribing } from '../../shared/pubsub/resubscribing.js';
import type { Worker, WorkerRuntime } from '../../shared/subgraph/define.js';
import { startPeriodicWorker } from '../../shared/subgraph/periodic.worker.js';
import { saveGroups } from '../groups/group.repository.js';
import { PersonBook } from '../persons/person.book.js';
import { loadPersons, savePersons, type WrittenPersons } from '../persons/person.repository.js';
import { settleAwaitedInserts } from './awaiting-insert.queue.js';
import { knownPersons } from './known-person.cache.js';
import { queueMirror } from './profile-mirror.queue.js';
import { ProfileMirrorWriter } from './profile-mirror.writer.js';
import { countFailure, forgetProfiles, lockProfiles, PARK_AFTER_ATTEMPTS, PROFILES_QUEUED_TOPIC, queuedEnvironments, takeProfiles, type PassBudget } from './profile.queue.js';

/** What one transaction applies: one load and one write of persons for all of it. */
const PASS_BUDGET: PassBudget = { entries: 20_000, bytes: 32 * 1024 * 1024 };
/** An environment whose changes failed to apply waits this long before the next try. */
const FAILED_PAUSE_MS = 60_000;
const SWEEP_MS = 1000;
/** Batches announced within this share a pass: at a stream's pace, a few dozen batches a second. */
const GATHER_MS = 200;

/**
 * Applies queued person and group changes, environment by environment, in the order their batches
 * were queued: a moment after a batch announces some, and every second for those queued by
 * another process. Persons and groups follow their events within moments, as in PostHog's pipeline.
 * Changes awaiting their batch's ClickHouse insert wait, and are settled when left so too long.
 * Where events live on ClickHouse, what a pass wrote is then written to ClickHouse's mirror tables.
 */
export function startProfileWorker({ orm, pubsub, log }: WorkerRuntime): Worker {
  // One environment whose changes cannot be applied waits; the others go on.
  const failedUntil = new Map<number, number>();
  const mirror = new ProfileMirrorWriter(log);
  const applyOne = async (environmentId: number, draining: boolean): Promise<number> => {
    // A drain (asked for by whoever waits on the result) does not wait out the pause.
    if (!draining && (failedUntil.get(environmentId) ?? 0) > Date.now()) return 0;
    let applied: number;
    try {
      applied = await applyQueued(orm.em.fork(), environmentId, draining);
    } catch (error) {
      failedUntil.set(environmentId, Date.now() + FAILED_PAUSE_MS);
      const parked = error instanceof PassFailed ? error.parked : [];
      const cause = error instanceof PassFailed ? error.cause : error;
      if (parked.length > 0) log.error({ err: cause, environment_id: environmentId, parked }, `profile updates parked after failing ${PARK_AFTER_ATTEMPTS} passes alone; the environment goes on without them`);
      else log.error({ err: cause, environment_id: environmentId }, 'profile updates of an environment failed; tried again in a minute, each failed row alone');
      return 0;
    }
    // After the commit, and never failing it: what the write leaves is swept again.
    if (applied > 0) await mirror.environment(orm.em.fork(), environmentId, draining);
    return applied;
  };
  const unwatch = watchProfileQueue(async () => {
    const [pending] = await orm.em.fork().execute<{ n: number }[]>('select coalesce(sum(entries), 0)::int as n from ingestion.profile_updates');
    return pending!.n;
  });
  return startPeriodicWorker({
    onStop: unwatch,
    run: async (stopped, draining) => {
      // Before the passes, which then apply what it let through; an outage of ClickHouse leaves the marks for the next sweep, and the rest goes on.
      await settleAwaitedInserts(orm.em.fork()).catch((error: unknown) => log.warn({ err: error }, 'changes awaiting a ClickHouse insert not settled; tried again at the next sweep'));
      let applied: number;
      do {
        applied = 0;
        for (const environmentId of await queuedEnvironments(orm.em.fork())) {
          if (stopped()) return;
          applied += await applyOne(environmentId, draining);
        }
      } while (applied > 0 && !stopped());
      await mirror.sweep(orm.em.fork(), stopped, draining);
    },
    everyMs: SWEEP_MS,
    log,
    failure: 'profile update pass failed',
    // A wake-up lost meanwhile is a batch the next sweep applies.
    wakeUps: resubscribing(pubsub, PROFILES_QUEUED_TOPIC, () => undefined),
    gatherMs: GATHER_MS,
  });
}

/**
 * The oldest queued batches of an environment, applied in one transaction that also removes them.
 * When another process holds the environment: none, or, when `wait`ing (a drain, whose caller
 * reads the persons next), after that process commits. Answers how many batches were applied.
 */
export async function applyQueued(em: EntityManager, environmentId: number, wait = false): Promise<number> {
  const mirrored = clickhouseOf(em) !== null;
  let book: PersonBook | undefined;
  let taken: string[] = [];
  const applied = await em.transactional(async (tx) => {
    if (!(await lockProfiles(tx, environmentId, wait))) return 0;
    const { ids, entries } = await takeProfiles(tx, environmentId, PASS_BUDGET);
    taken = ids;
    const people = entries.filter((entry) => entry.person);
    let written: WrittenPersons = { persons: [], distinct_ids: [], deleted: [] };
    if (people.length > 0) {
      const distinctIds = new Set(people.flatMap((entry) => (entry.person!.merge ? [entry.distinct_id, entry.person!.merge.other] : [entry.distinct_id])));
      book = new PersonBook(environmentId, await loadPersons(tx, environmentId, [...distinctIds]));
      for (const entry of people) book.apply(entry);
      written = await savePersons(tx, environmentId, book.changes());
    }
    const groups = await saveGroups(tx, environmentId, entries);
    // Committed with the rows it names: the mirror is written after the commit, and again until ClickHouse takes it.
    if (mirrored) await queueMirror(tx, environmentId, { ...written, groups });
    await forgetProfiles(tx, ids);
    return ids.length;
  }).catch(async (error: unknown) => {
    throw new PassFailed(error, taken.length > 0 ? await countFailure(em.fork(), taken, String((error as Error).message ?? error)) : []);
  });
  // Only what is committed may spare later batches their entries.
  const database = String(em.config.get('clientUrl'));
  for (const [distinctId, createdAt] of book?.createdAtByDistinctId() ?? []) knownPersons.remember(database, environmentId, distinctId, createdAt);
  return applied;
}

/** A pass that failed, and the rows it left parked. */
class PassFailed extends Error {
  constructor(
    override readonly cause: unknown,
    readonly parked: string[],
  ) {
    super('profile pass failed');
  }
}
