import type { EntityManager } from '@mikro-orm/postgresql';
import { projectsFacade, type IngestionTarget } from '../../projects/facade.js';
import { ValidationError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import type { PendingInsert } from '../events/event-store.ports.js';
import { eventStoreOf } from '../events/event.store.js';
import { confirmLanded, holdAwaited } from '../profiles/awaiting-insert.queue.js';
import { isNoop, knownPersons } from '../profiles/known-person.cache.js';
import { profileEntries } from '../profiles/profile-entry.js';
import { enqueueProfiles } from '../profiles/profile.queue.js';
import { eventTooLarge, refusedData, sendAgain, unknownKey } from './capture.errors.js';
import type { CapturedEvent } from './captured-event.js';
import { MAX_EVENT_PROPERTIES_BYTES } from './stored-properties.js';

const MAX_ATTEMPTS = 5;

/** What a written batch left: how many events were new, and whether profile changes were queued. */
export interface Written {
  stored: number;
  queuedProfiles: boolean;
}

/**
 * Writes a checked batch in one transaction, holding its project against deletion (401 once it is
 * deleted): the project's new group types, the events the environment has not seen, and their
 * person and group changes, queued for the profile worker (as PostHog's capture hands events on).
 * A new event over MAX_EVENT_PROPERTIES_BYTES of properties refuses the batch (413). A failure the
 * events store calls passing (a deadlock, a partition gone under this process) runs the
 * transaction again; what PostgreSQL refuses of the events' data is a 400. On ClickHouse, the
 * events are inserted after the commit, and the batch is written once the insert answered.
 */
export async function writeBatch(em: EntityManager, target: IngestionTarget, events: CapturedEvent[], log: Logger): Promise<Written> {
  const { pending, ...written } = await writeRetried(em, target, events, log);
  if (pending) await insertAfterCommit(em, target.environment_id, pending, written.queuedProfiles);
  return written;
}

/** What the batch's transaction left: ClickHouse's insert, where the events go there. */
type Committed = Written & { pending: PendingInsert | null };

async function writeRetried(em: EntityManager, target: IngestionTarget, events: CapturedEvent[], log: Logger): Promise<Committed> {
  const store = eventStoreOf(em);
  for (let attempt = 1; ; attempt++) {
    await store.prepare(em, events, log);
    try {
      return await em.transactional((tx) => writeInTransaction(tx, target, events));
    } catch (error) {
      const refused = refusedData(error);
      if (refused) throw refused;
      if (attempt >= MAX_ATTEMPTS || !store.retryable(error)) throw error;
      log.warn({ code: (error as { code?: string }).code, attempt }, 'batch write retried');
    }
  }
}

async function writeInTransaction(tx: EntityManager, target: IngestionTarget, events: CapturedEvent[]): Promise<Committed> {
  if (!(await projectsFacade.holdLiveProject(tx, target.project_id))) throw unknownKey();
  const groupIndexes = await groupTypesOf(tx, target.project_id, events);
  const { fresh, landed, pending } = await eventStoreOf(tx).store(tx, target.environment_id, events);
  const tooLarge = fresh.find((event) => event.oversize !== null);
  if (tooLarge) throw eventTooLarge(tooLarge.index, tooLarge.oversize!, MAX_EVENT_PROPERTIES_BYTES);
  // Events an earlier attempt of the batch inserted: the changes it queued apply, none are queued again.
  if (landed.length > 0) await confirmLanded(tx, target.environment_id, landed);
  if (fresh.length === 0) return { stored: 0, queuedProfiles: false, pending };
  const known = knownPersons.of(String(tx.config.get('clientUrl')), target.environment_id);
  const entries = profileEntries(fresh, groupIndexes).filter((entry) => !isNoop(known, entry));
  await enqueueProfiles(tx, target.environment_id, entries, pending);
  return { stored: fresh.length, queuedProfiles: entries.length > 0, pending };
}

/**
 * ClickHouse's insert of a committed batch's fresh events. The changes the batch queued await it:
 * the transaction that clears their mark holds it while ClickHouse inserts, and commits once the
 * insert answered (one that fails leaves the mark, settled by what ClickHouse holds). A mark gone
 * already was settled by another attempt of the batch, which found the events stored, or by the
 * sweep, which found them absent and dropped the changes: inserting them then would store events
 * without their changes, so the client sends the batch again.
 */
async function insertAfterCommit(em: EntityManager, environmentId: number, pending: PendingInsert, marked: boolean): Promise<void> {
  if (!marked) return pending.insert();
  await em.transactional(async (tx) => {
    if (await holdAwaited(tx, environmentId, pending.token)) return pending.insert();
    if (!(await pending.landed())) throw sendAgain();
  });
}

/**
 * The project's index of every group type the events name, new types mapped as they come. A group
 * update of a type that finds no free index (a project has five at most) fails the batch; a type
 * only named in `$groups` is then left without one, as PostHog leaves it.
 */
async function groupTypesOf(tx: EntityManager, projectId: number, events: CapturedEvent[]): Promise<Map<string, number>> {
  const { indexes, refused } = await projectsFacade.groupTypeIndexes(tx, projectId, events.flatMap((event) => event.group_types));
  const blocked = events.find((event) => event.group && refused.includes(event.group.group_type));
  if (blocked) {
    throw new ValidationError(
      `The project has five group types already; "${blocked.group!.group_type}" would be a sixth.`,
      `batch__${blocked.index}__properties__$group_type`,
      'group_type_limit',
    );
  }
  return indexes;
}
