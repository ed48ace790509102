import type { EntityManager } from '@mikro-orm/postgresql';
import { projectsFacade } from '../../projects/facade.js';
import type { Actor } from '../../shared/auth/actor.js';
import { NotFoundError } from '../../shared/errors.js';
import { pageWindow } from '../../shared/subgraph/pagination.js';
import { isUuid } from '../../shared/validation.js';
import { eventQuery, type EventQuery } from './event-condition.js';
import { decodeCursor, encodeCursor } from './event-cursor.js';
import type { EventFilterArgs, ListEventsArgs } from './event.inputs.js';
import type { EventList, EventRecord } from './event.record.js';
import { eventStoreOf } from './event.store.js';

/** Reading what arrived: an environment's events, for members of its organization. */
export class EventService {
  constructor(private readonly em: EntityManager) {}

  /** Newest first; `next` resumes after the page's last event, so no event is skipped or repeated. */
  async list(actor: Actor, args: ListEventsArgs): Promise<EventList> {
    const where = await this.condition(actor, args);
    const { limit } = pageWindow({ limit: args.limit });
    const rows = await eventStoreOf(this.em).page(this.em, where, args.cursor ? decodeCursor(args.cursor) : null, limit + 1);
    const results = rows.slice(0, limit);
    const last = results.at(-1);
    const next_cursor = rows.length > limit && last ? encodeCursor({ timestamp: last.timestamp, uuid: last.id }) : null;
    return { next: next_cursor ? `?limit=${limit}&cursor=${next_cursor}` : null, next_cursor, results };
  }

  async count(actor: Actor, args: EventFilterArgs): Promise<number> {
    return eventStoreOf(this.em).count(this.em, await this.condition(actor, args));
  }

  async get(actor: Actor, environmentId: number, id: string): Promise<EventRecord> {
    const environment = await projectsFacade.reachEnvironment(this.em, actor, environmentId);
    const row = isUuid(id) ? await eventStoreOf(this.em).find(this.em, environment.id, id.toLowerCase()) : null;
    if (!row) throw new NotFoundError();
    return row;
  }

  private async condition(actor: Actor, args: EventFilterArgs): Promise<EventQuery> {
    const environment = await projectsFacade.reachEnvironment(this.em, actor, args.project_id);
    return eventQuery(environment.id, args);
  }
}
