import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/auth/actor.js';
import { NotFoundError } from '../../shared/errors.js';
import { toPage } from '../../shared/subgraph/pagination.js';
import { ActivityLog, type ActivityChange } from './activity-log.entity.js';
import { SettingChange } from './setting-change.entity.js';
import type { ActivityLogList, ActivityLogRecord } from './activity-log.record.js';
import { readPage } from '../../shared/db/find-page.js';

export interface ActivityEntry {
  organization_id: string;
  project_id: number;
  environment_id: number | null;
  scope: ActivityLog['scope'];
  activity: ActivityLog['activity'];
  item_name: string;
  changes: ActivityChange[];
}

/** Fields (and keys inside JSON settings) whose values are tokens: the log keeps that they changed, never the values. */
const SECRET_KEY = /token/i;

export class ActivityLogService {
  constructor(private readonly em: EntityManager) {}

  /**
   * A project's log (its own entries and its environments'), newest first. With a `page` (from 1),
   * it pages as PostHog does: links by page number, and a page past the end is "Invalid page.".
   */
  async list(projectId: number, window: { limit: number; offset: number }, page?: number): Promise<ActivityLogList> {
    if (page === undefined || page === null) {
      const [entries, count] = await readPage(this.em, ActivityLog, { project_id: projectId }, { orderBy: { id: 'desc' }, ...window });
      return { ...toPage(entries.map(toRecord), count, window), total_count: count };
    }
    if (page < 1) throw new NotFoundError('Invalid page.');
    const paged = { limit: window.limit, offset: (page - 1) * window.limit };
    const [entries, count] = await readPage(this.em, ActivityLog, { project_id: projectId }, { orderBy: { id: 'desc' }, ...paged });
    if (page > 1 && paged.offset >= count) throw new NotFoundError('Invalid page.');
    return {
      count,
      total_count: count,
      next: paged.offset + paged.limit < count ? `?limit=${paged.limit}&page=${page + 1}` : null,
      previous: page > 1 ? `?limit=${paged.limit}&page=${page - 1}` : null,
      results: entries.map(toRecord),
    };
  }

  /** Adds an entry to the unit of work: it is written by the same flush, in the same transaction. */
  record(actor: Actor, entry: ActivityEntry): ActivityLog {
    const log = Object.assign(new ActivityLog(), {
      ...entry,
      user_id: actor.user?.id ?? null,
      changes: entry.changes.map((change) =>
        change.field && SECRET_KEY.test(change.field)
          ? { ...change, before: mask(change.before), after: mask(change.after) }
          : { ...change, before: maskNested(change.before), after: maskNested(change.after) },
      ),
    });
    this.em.persist([log, ...fieldChanges(log)]);
    return log;
  }
}

/** The entry's changes of an environment's fields, a row each, for settings_as_of. */
function fieldChanges(log: ActivityLog): SettingChange[] {
  if (log.environment_id === null) return [];
  return log.changes.flatMap((change, position) =>
    change.field === null
      ? []
      : [Object.assign(new SettingChange(), { log, position, environment_id: log.environment_id!, field: change.field, action: change.action, before: change.before ?? null, created_at: log.created_at })],
  );
}

/** Masks token values inside a JSON setting (`conversations_settings.widget_public_token`). */
function maskNested(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(maskNested);
  return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, SECRET_KEY.test(key) ? mask(inner) : maskNested(inner)]));
}

function mask(value: unknown): unknown {
  return typeof value === 'string' && value.length > 8 ? `${value.slice(0, 4)}...${value.slice(-4)}` : value === null ? null : '****';
}

function toRecord(entry: ActivityLog): ActivityLogRecord {
  const itemId = String(entry.environment_id ?? entry.project_id);
  return {
    id: entry.id,
    user: entry.user_id === null ? null : { id: entry.user_id },
    activity: entry.activity,
    scope: entry.scope,
    item_id: itemId,
    detail: { id: itemId, name: entry.item_name, changes: entry.changes, merge: null, trigger: null, short_id: null, type: null },
    created_at: entry.created_at,
  };
}
