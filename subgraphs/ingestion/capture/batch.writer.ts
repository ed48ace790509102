import type { EntityManager } from '@mikro-orm/postgresql';
import { projectsFacade, type IngestionTarget } from '../../projects/facade.js';
import { ValidationError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { ensurePartitions, forgetPartitions } from '../events/event-partitions.js';
import { storeEvents } from '../events/event.repository.js';
import { saveGroups } from '../groups/group.repository.js';
import { PersonBook } from '../persons/person.book.js';
import { loadPersons, savePersons } from '../persons/person.repository.js';
import type { CapturedEvent } from './captured-event.js';

/** Serialises person and group changes within one environment (the second key is its id). */
const PROFILES_LOCK = 0x70726f66;
const MAX_ATTEMPTS = 5;

/**
 * Writes a checked batch in one transaction and returns how many of its events were new. Events
 * go in first, concurrently with other batches; then, under a lock per environment held until the
 * commit, the persons and groups of the new events change in their order, so that concurrent
 * batches never interleave their merges. A deadlock or a write that found no partition (the
 * database was replaced) runs the transaction again.
 */
export async function writeBatch(em: EntityManager, target: IngestionTarget, events: CapturedEvent[], log: Logger): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    await ensurePartitions(em, events.map((event) => event.time), log);
    try {
      return await em.transactional((tx) => writeInTransaction(tx, target, events));
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (attempt >= MAX_ATTEMPTS || !(code === '40P01' || code === '40001' || code === '23514')) throw error;
      if (code === '23514') forgetPartitions();
      log.warn({ code, attempt }, 'batch write retried');
    }
  }
}

async function writeInTransaction(tx: EntityManager, target: IngestionTarget, events: CapturedEvent[]): Promise<number> {
  const environmentId = target.environment_id;
  const groupTypes = await groupTypesOf(tx, target.project_id, events);
  const stored = await storeEvents(tx, environmentId, events);
  const fresh = events.filter((event) => stored.has(event.uuid));
  if (fresh.length === 0) return 0;
  await tx.execute('select pg_advisory_xact_lock(?, ?)', [PROFILES_LOCK, environmentId]);
  const profiled = fresh.filter((event) => event.person);
  if (profiled.length > 0) {
    const distinctIds = new Set(profiled.flatMap((event) => (event.person!.merge ? [event.distinct_id, event.person!.merge.other] : [event.distinct_id])));
    const book = new PersonBook(environmentId, await loadPersons(tx, environmentId, [...distinctIds]));
    for (const event of profiled) book.apply(event);
    await savePersons(tx, environmentId, book.changes());
  }
  await saveGroups(tx, environmentId, fresh, groupTypes);
  if (!target.ingested_event) await projectsFacade.markIngested(tx, environmentId);
  return fresh.length;
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
      `The project has five group types already (${[...indexes.keys()].join(', ')}); "${blocked.group!.group_type}" would be a sixth.`,
      `batch__${blocked.index}__properties__$group_type`,
      'group_type_limit',
    );
  }
  return indexes;
}
