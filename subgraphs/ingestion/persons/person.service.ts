import type { EntityManager } from '@mikro-orm/postgresql';
import { projectsFacade } from '../../projects/facade.js';
import type { Actor } from '../../shared/auth/actor.js';
import { NotFoundError } from '../../shared/errors.js';
import { pageWindow, toPage, type Page } from '../../shared/pagination.js';
import { isUuid } from '../../shared/validation.js';
import type { ListPersonsArgs } from './person.inputs.js';
import type { PersonRecord } from './person.record.js';

const MAX_DISTINCT_IDS = 1000;
const NAME_PROPERTIES = ['email', 'name', 'username'];

interface PersonRow {
  uuid: string;
  properties: Record<string, unknown>;
  is_identified: boolean;
  /** PostgreSQL's text: raw statements do not parse timestamps. */
  created_at: string;
  distinct_ids: string[] | null;
}

const SELECT = `select p.uuid, p.properties, p.is_identified, p.created_at,
  (select (array_agg(d.distinct_id order by d.distinct_id))[1:${MAX_DISTINCT_IDS}] from ingestion.person_distinct_ids d where d.person_id = p.id) as distinct_ids
  from ingestion.persons p`;

/** Reading an environment's persons, for members of its organization. */
export class PersonService {
  constructor(private readonly em: EntityManager) {}

  /** Newest first (by their earliest event). */
  async list(actor: Actor, args: ListPersonsArgs): Promise<Page<PersonRecord>> {
    const environment = await projectsFacade.reachEnvironment(this.em, actor, args.project_id);
    const window = pageWindow(args);
    const parts = ['p.environment_id = ?'];
    const params: unknown[] = [environment.id];
    if (args.distinct_id != null) {
      parts.push('p.id in (select person_id from ingestion.person_distinct_ids where environment_id = ? and distinct_id = ?)');
      params.push(environment.id, args.distinct_id);
    }
    if (args.search) {
      parts.push(`(p.properties::text ilike ? escape '\\' or exists (select 1 from ingestion.person_distinct_ids d where d.person_id = p.id and d.distinct_id ilike ? escape '\\'))`);
      const pattern = `%${args.search.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
      params.push(pattern, pattern);
    }
    const where = parts.join(' and ');
    const [rows, [total]] = await Promise.all([
      this.em.execute<PersonRow[]>(`${SELECT} where ${where} order by p.created_at desc, p.id desc limit ? offset ?`, [...params, window.limit, window.offset]),
      this.em.execute<{ count: string }[]>(`select count(*) as count from ingestion.persons p where ${where}`, params),
    ]);
    return toPage(rows.map(record), Number(total!.count), window);
  }

  async get(actor: Actor, environmentId: number, id: string): Promise<PersonRecord> {
    const environment = await projectsFacade.reachEnvironment(this.em, actor, environmentId);
    const [row] = isUuid(id) ? await this.em.execute<PersonRow[]>(`${SELECT} where p.environment_id = ? and p.uuid = ?`, [environment.id, id.toLowerCase()]) : [];
    if (!row) throw new NotFoundError();
    return record(row);
  }
}

function record(row: PersonRow): PersonRecord {
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
