import type { EntityManager } from '@mikro-orm/postgresql';
import { projectsFacade, type IngestionTarget } from '../../projects/facade.js';
import { ValidationError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { eventStoreOf } from '../events/event.store.js';
import { isNoop, knownPersons } from '../profiles/known-person.cache.js';
import { profileEntries } from '../profiles/profile-entry.js';
import { enqueueProfiles } from '../profiles/profile.queue.js';
import { eventTooLarge, refusedData, unknownKey } from './capture.errors.js';
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
 * transaction again; what PostgreSQL refuses of the events' data is a 400.
 */
export async function writeBatch(em: EntityManager, target: IngestionTarget, events: CapturedEvent[], log: Logger): Promise<Written> {
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

async function writeInTransaction(tx: EntityManager, target: IngestionTarget, events: CapturedEvent[]): Promise<Written> {
  if (!(await projectsFacade.holdLiveProject(tx, target.project_id))) throw unknownKey();
  const groupIndexes = await groupTypesOf(tx, target.project_id, events);
  let queuedProfiles = false;
  const fresh = await eventStoreOf(tx).store(tx, target.environment_id, events, async (stored) => {
    const tooLarge = stored.find((event) => event.oversize !== null);
    if (tooLarge) throw eventTooLarge(tooLarge.index, tooLarge.oversize!, MAX_EVENT_PROPERTIES_BYTES);
    if (stored.length === 0) return;
    const known = knownPersons.of(String(tx.config.get('clientUrl')), target.environment_id);
    const entries = profileEntries(stored, groupIndexes).filter((entry) => !isNoop(known, entry));
    await enqueueProfiles(tx, target.environment_id, entries);
    queuedProfiles = entries.length > 0;
  });
  return { stored: fresh.length, queuedProfiles };
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
