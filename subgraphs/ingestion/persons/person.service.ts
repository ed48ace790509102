import type { EntityManager } from '@mikro-orm/postgresql';
import { projectsFacade } from '../../projects/facade.js';
import type { Actor } from '../../shared/auth/actor.js';
import { NotFoundError } from '../../shared/errors.js';
import { pageWindow, toPage, type Page } from '../../shared/subgraph/pagination.js';
import { isUuid } from '../../shared/validation.js';
import type { ListPersonsArgs } from './person.inputs.js';
import type { PersonRecord } from './person.record.js';
import { findPerson, listPersons, type PersonRow } from './person.repository.js';

/** Reading an environment's persons, for members of its organization. */
export class PersonService {
  constructor(private readonly em: EntityManager) {}

  /** Newest first (by their earliest event). */
  async list(actor: Actor, args: ListPersonsArgs): Promise<Page<PersonRecord>> {
    const environment = await projectsFacade.reachEnvironment(this.em, actor, args.project_id);
    const window = pageWindow(args);
    const { rows, count } = await listPersons(this.em, environment.id, { distinct_id: args.distinct_id, search: args.search }, window);
    return toPage(rows.map(personRecord), count, window);
  }

  async get(actor: Actor, environmentId: number, id: string): Promise<PersonRecord> {
    const environment = await projectsFacade.reachEnvironment(this.em, actor, environmentId);
    const row = isUuid(id) ? await findPerson(this.em, environment.id, id.toLowerCase()) : undefined;
    if (!row) throw new NotFoundError();
    return personRecord(row);
  }
}

const NAME_PROPERTIES = ['email', 'name', 'username'];

/** A person as the read paths answer it: PostHog's display name, its distinct ids and properties. */
export function personRecord(row: PersonRow): PersonRecord {
  const distinct_ids = row.distinct_ids ?? [];
  const named = NAME_PROPERTIES.map((key) => row.properties[key]).find((value) => typeof value === 'string' && value !== '');
  return {
    id: row.uuid,
    uuid: row.uuid,
    type: 'person',
    name: (named as string | undefined) ?? distinct_ids[0] ?? row.uuid,
    distinct_ids,
    properties: row.properties,
    is_identified: row.is_identified,
    created_at: new Date(row.created_at),
  };
}
