import { isDeepStrictEqual } from 'node:util';
import type { EntityData, EntityMetadata, EntityName, FilterQuery, FindOptions, Loaded, QueryOrderMap } from '@mikro-orm/core';
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
  const items = await readRows(em, entity, where, options);
  return [items, await countOf(em, entity, where, items.length, options)];
}

/**
 * The page's rows, mapped to the entity's properties as the QueryBuilder maps them. Its statement
 * is written once per entity, filter shape and order, and then only run with this filter's values
 * (see {@link pageStatement}): building it through the QueryBuilder, knex and their compilers on
 * every request took a large share of a worker's time under distinct queries (test/bench/RESULTS.md).
 */
async function readRows<Entity extends object>(
  em: EntityManager,
  entity: EntityName<Entity>,
  where: FilterQuery<NoInfer<Entity>>,
  options: { orderBy: QueryOrderMap<Entity>; limit: number; offset: number },
): Promise<Entity[]> {
  const meta = em.getMetadata(entity);
  const filter = filterShape(where);
  const statement = filter && pageStatement(em, meta, where, filter, options.orderBy);
  if (!statement) {
    return em.createQueryBuilder(entity).select('*').where(where).orderBy(options.orderBy).limit(options.limit).offset(options.offset).execute<Entity[]>('all');
  }
  // Run as the QueryBuilder runs its own: the values written into the text by MikroORM, so that
  // PostgreSQL reads exactly the statement it would have read (a number too large for an integer
  // column then matches nothing, where a parameter would be refused).
  const rows = await em.getConnection().execute<EntityData<Entity>[]>(`${statement} limit ? offset ?`, [...filter.values, options.limit, options.offset], 'all', em.getTransactionContext());
  const driver = em.getDriver();
  return rows.map((row) => driver.mapResult(row, meta) as Entity);
}

/** A filter's shape (its keys, operators, nulls and list lengths, with `?` for each value) and its values in order. */
interface FilterShape {
  key: string;
  values: (string | number | boolean)[];
}

/**
 * The shape of a filter made of plain values (strings, numbers, booleans and nulls in plain objects
 * and arrays); none for one holding anything else (a date, a bigint, an entity, undefined), whose
 * reads each build their own statement.
 */
function filterShape(where: unknown): FilterShape | undefined {
  const values: FilterShape['values'] = [];
  let plain = true;
  const shape = (value: unknown): unknown => {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      values.push(value);
      return '?';
    }
    if (value === null) return null;
    if (Array.isArray(value)) return value.map(shape);
    if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
      const fields: Record<string, unknown> = {};
      for (const [name, field] of Object.entries(value)) fields[name] = shape(field);
      return fields;
    }
    plain = false;
    return undefined;
  };
  const key = JSON.stringify(shape(where));
  return plain ? { key, values } : undefined;
}

/** Per entity (metadata of one ORM) and shape: the statement without its window, `?` for each value. */
const statements = new WeakMap<EntityMetadata, Map<string, string | null>>();
/** Shapes kept per entity: lists of other lengths are other shapes, and a caller's lists may be long. */
const MAX_SHAPES = 256;

/**
 * The page statement for filters of this shape and this order, written by the QueryBuilder the
 * first time. Used only when the QueryBuilder bound exactly the filter's values, in order, so that
 * another filter of the shape binds its own values in their place; else null, and each read of the
 * shape builds its own. (A property type that converted some values and left others as they are
 * would get past that check; the entities read this way have none, only MikroORM's own types.)
 */
function pageStatement<Entity extends object>(
  em: EntityManager,
  meta: EntityMetadata<Entity>,
  where: FilterQuery<NoInfer<Entity>>,
  filter: FilterShape,
  orderBy: QueryOrderMap<Entity>,
): string | null {
  let byShape = statements.get(meta);
  if (!byShape) statements.set(meta, (byShape = new Map()));
  const key = `${filter.key}\n${JSON.stringify(orderBy)}`;
  let statement = byShape.get(key);
  if (statement === undefined) {
    const compiled = em.createQueryBuilder(meta.class).select('*').where(where).orderBy(orderBy).getKnexQuery().toSQL();
    statement = isDeepStrictEqual(compiled.bindings, filter.values) ? compiled.sql : null;
    if (byShape.size < MAX_SHAPES) byShape.set(key, statement);
  }
  return statement;
}

/** The whole list's count: told by a page that ends it, else counted. */
async function countOf<Entity extends object>(em: EntityManager, entity: EntityName<Entity>, where: FilterQuery<NoInfer<Entity>>, rows: number, page: { limit: number; offset: number }): Promise<number> {
  const ended = rows < page.limit && (rows > 0 || page.offset === 0);
  return ended ? page.offset + rows : em.count(entity, where);
}
