import { raw, type EntityManager, type FilterQuery } from '@mikro-orm/postgresql';
import { projectsFacade } from '../../projects/facade.js';
import type { Actor } from '../../shared/auth/actor.js';
import { NotFoundError, ValidationError } from '../../shared/errors.js';
import { pageWindow, toPage, type Page } from '../../shared/pagination.js';
import { Group } from './group.entity.js';
import type { GroupArgs, ListGroupsArgs } from './group.inputs.js';
import type { GroupRecord } from './group.record.js';

/** Reading an environment's groups, for members of its organization. */
export class GroupService {
  constructor(private readonly em: EntityManager) {}

  /** One type's groups, newest first. */
  async list(actor: Actor, args: ListGroupsArgs): Promise<Page<GroupRecord>> {
    const environment = await projectsFacade.reachEnvironment(this.em, actor, args.project_id);
    const window = pageWindow(args);
    const where: FilterQuery<Group> = { environment_id: environment.id, group_type_index: typeIndex(args.group_type_index) };
    if (args.search) {
      // ILIKE's escape character is the backslash.
      const pattern = `%${args.search.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
      where.$or = [{ group_key: { $ilike: pattern } }, { [raw('group_properties::text')]: { $ilike: pattern } }];
    }
    const [groups, count] = await this.em.findAndCount(Group, where, {
      orderBy: { created_at: 'desc', group_key: 'asc' },
      limit: window.limit,
      offset: window.offset,
    });
    return toPage(groups.map(record), count, window);
  }

  async get(actor: Actor, args: GroupArgs): Promise<GroupRecord> {
    const environment = await projectsFacade.reachEnvironment(this.em, actor, args.project_id);
    const group = await this.em.findOne(Group, { environment_id: environment.id, group_type_index: typeIndex(args.group_type_index), group_key: args.group_key });
    if (!group) throw new NotFoundError();
    return record(group);
  }
}

function typeIndex(value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > 4) throw new ValidationError('Ensure this value is between 0 and 4.', 'group_type_index', 'invalid');
  return value;
}

function record({ group_type_index, group_key, group_properties, created_at }: Group): GroupRecord {
  return { group_type_index, group_key, group_properties, created_at };
}
