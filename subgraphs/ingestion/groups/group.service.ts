import type { EntityManager } from '@mikro-orm/postgresql';
import { projectsFacade } from '../../projects/facade.js';
import type { Actor } from '../../shared/auth/actor.js';
import { NotFoundError, ValidationError } from '../../shared/errors.js';
import { pageWindow, toPage, type Page } from '../../shared/subgraph/pagination.js';
import type { GroupArgs, ListGroupsArgs } from './group.inputs.js';
import type { GroupRecord } from './group.record.js';
import { findGroup, listGroups, type GroupRow } from './group.repository.js';

/** Reading an environment's groups, for members of its organization. */
export class GroupService {
  constructor(private readonly em: EntityManager) {}

  /** One type's groups, newest first. */
  async list(actor: Actor, args: ListGroupsArgs): Promise<Page<GroupRecord>> {
    const environment = await projectsFacade.reachEnvironment(this.em, actor, args.project_id);
    const window = pageWindow(args);
    const { rows, count } = await listGroups(this.em, environment.id, { group_type_index: typeIndex(args.group_type_index), search: args.search }, window);
    return toPage(rows.map(record), count, window);
  }

  async get(actor: Actor, args: GroupArgs): Promise<GroupRecord> {
    const environment = await projectsFacade.reachEnvironment(this.em, actor, args.project_id);
    const row = await findGroup(this.em, environment.id, typeIndex(args.group_type_index), args.group_key);
    if (!row) throw new NotFoundError();
    return record(row);
  }
}

function typeIndex(value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > 4) throw new ValidationError('Ensure this value is between 0 and 4.', 'group_type_index');
  return value;
}

function record({ group_type_index, group_key, group_properties, created_at }: GroupRow): GroupRecord {
  return { group_type_index, group_key, group_properties, created_at: new Date(created_at) };
}
