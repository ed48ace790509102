import type { EntityName, FilterQuery, FindOptions, Loaded, QueryOrderMap } from '@mikro-orm/core';
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
  return [items, await countOf(em, entity, where, items.length, options)];
}

/**
 * {@link findPage} for a read that changes nothing: the rows come as plain objects of the entity's
 * properties, not managed entities, so none is built, tracked or put in the identity map (on a
 * list read under load, most of what the ORM spent). Only for entities without methods or
 * accessors, whose plain rows are what a resolver reads.
 */
export async function readPage<Entity extends object>(
  em: EntityManager,
  entity: EntityName<Entity>,
  where: FilterQuery<NoInfer<Entity>>,
  options: { orderBy: QueryOrderMap<Entity>; limit: number; offset: number },
): Promise<[Entity[], number]> {
  const items = await em.createQueryBuilder(entity).select('*').where(where).orderBy(options.orderBy).limit(options.limit).offset(options.offset).execute<Entity[]>('all');
  return [items, await countOf(em, entity, where, items.length, options)];
}

/** The whole list's count: told by a page that ends it, else counted. */
async function countOf<Entity extends object>(em: EntityManager, entity: EntityName<Entity>, where: FilterQuery<NoInfer<Entity>>, rows: number, page: { limit: number; offset: number }): Promise<number> {
  const ended = rows < page.limit && (rows > 0 || page.offset === 0);
  return ended ? page.offset + rows : em.count(entity, where);
}
