import type { EntityManager } from '@mikro-orm/postgresql';
import { GroupType } from './group-type.entity.js';
import type { GroupTypeRecord } from './group-type.record.js';

export class GroupTypeService {
  constructor(private readonly em: EntityManager) {}

  /** Group types of several projects at once (for lists of records), by project id, in index order. */
  async byProject(ids: number[]): Promise<Map<number, GroupTypeRecord[]>> {
    const types = ids.length > 0 ? await this.em.find(GroupType, { project: { $in: ids } }, { orderBy: { group_type_index: 'asc' } }) : [];
    const grouped = new Map<number, GroupTypeRecord[]>(ids.map((id) => [id, []]));
    for (const { project, group_type, group_type_index, name_singular, name_plural } of types) {
      grouped.get(project.id)?.push({ group_type, group_type_index, name_singular, name_plural });
    }
    return grouped;
  }
}
