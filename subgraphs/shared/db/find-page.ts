import type { EntityName, FilterQuery, FindOptions, Loaded } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * One page of a list and the number of records in the whole list, as `em.findAndCount` answers,
 * without its count query when the page tells the count: a page that is not full, and is not past
 * the end, ends the list, so the count is its offset plus its rows. Most lists fit in a page, so
 * most list reads are one query instead of two. (The two queries of `findAndCount` never shared a
 * snapshot either: a count read apart is no truer.)
 */
export async function findPage<Entity extends object, Hint extends string = never, Fields extends string = '*', Excludes extends string = never>(
  em: EntityManager,
  entity: EntityName<Entity>,
  where: FilterQuery<NoInfer<Entity>>,
  options: FindOptions<Entity, Hint, Fields, Excludes> & { limit: number; offset: number },
): Promise<[Loaded<Entity, Hint, Fields, Excludes>[], number]> {
  const items = await em.find(entity, where, options);
  const ended = items.length < options.limit && (items.length > 0 || options.offset === 0);
  return [items, ended ? options.offset + items.length : await em.count(entity, where)];
}
