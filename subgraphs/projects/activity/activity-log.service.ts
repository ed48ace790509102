import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/auth/actor.js';
import { ActivityLog, type ActivityChange } from './activity-log.entity.js';

export interface ActivityEntry {
  organization_id: string;
  project_id: number;
  environment_id: number | null;
  scope: ActivityLog['scope'];
  activity: ActivityLog['activity'];
  item_name: string;
  changes: ActivityChange[];
}

/** Fields whose values are secrets: the log keeps that they changed, never the values. */
const SECRET_FIELDS = new Set(['api_token', 'secret_api_token', 'secret_api_token_backup']);

export class ActivityLogService {
  constructor(private readonly em: EntityManager) {}

  /** Adds an entry to the unit of work: it is written by the same flush, in the same transaction. */
  record(actor: Actor, entry: ActivityEntry): ActivityLog {
    const log = Object.assign(new ActivityLog(), {
      ...entry,
      user_id: actor.user?.id ?? null,
      changes: entry.changes.map((change) => (change.field && SECRET_FIELDS.has(change.field) ? { ...change, before: mask(change.before), after: mask(change.after) } : change)),
    });
    this.em.persist(log);
    return log;
  }
}

function mask(value: unknown): unknown {
  return typeof value === 'string' && value.length > 8 ? `${value.slice(0, 4)}...${value.slice(-4)}` : value === null ? null : '****';
}
