import type { EntityManager } from '@mikro-orm/postgresql';
import { projectsFacade, type IngestionTarget } from '../../projects/facade.js';
import { ValidationError } from '../../shared/errors.js';
import type { Logger } from '../../shared/logger.js';
import { ensurePartitions, forgetPartitions } from '../events/event-partition.repository.js';
import { storeEvents } from '../events/event.repository.js';
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
 * A new event over MAX_EVENT_PROPERTIES_BYTES of properties refuses the batch (413). A deadlock,
 * or a write that found no partition (the database was replaced under this process), runs the
 * transaction again; what PostgreSQL refuses of the events' data is a 400.
 */
export async function writeBatch(em: EntityManager, target: IngestionTarget, events: CapturedEvent[], log: Logger): Promise<Written> {
  for (let attempt = 1; ; attempt++) {
    await ensurePartitions(em, events.map((event) => event.time), log);
    try {
      return await em.transactional((tx) => writeInTransaction(tx, target, events));
    } catch (error) {
      const code = (error as { code?: string }).code;
      const refused = refusedData(error);
      if (refused) throw refused;
      if (attempt >= MAX_ATTEMPTS || !(code === '40P01' || code === '40001' || code === '23514')) throw error;
      if (code === '23514') forgetPartitions();
      log.warn({ code, attempt }, 'batch write retried');
    }
  }
}

async function writeInTransaction(tx: EntityManager, target: IngestionTarget, events: CapturedEvent[]): Promise<Written> {
  if (!(await projectsFacade.holdLiveProject(tx, target.project_id))) throw unknownKey();
  const groupIndexes = await groupTypesOf(tx, target.project_id, events);
  const seen = await storeEvents(tx, target.environment_id, events);
  const fresh = seen.size === 0 ? events : events.filter((event) => !seen.has(event.uuid));
  const tooLarge = fresh.find((event) => event.oversize !== null);
  if (tooLarge) throw eventTooLarge(tooLarge.index, tooLarge.oversize!, MAX_EVENT_PROPERTIES_BYTES);
  if (fresh.length === 0) return { stored: 0, queuedProfiles: false };
  const known = knownPersons.of(String(tx.config.get('clientUrl')), target.environment_id);
  const entries = profileEntries(fresh, groupIndexes).filter((entry) => !isNoop(known, entry));
  await enqueueProfiles(tx, target.environment_id, entries);
  return { stored: fresh.length, queuedProfiles: entries.length > 0 };
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
