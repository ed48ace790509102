import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Runs a statement with its values sent apart from its text, as PostgreSQL parameters, in the
 * EntityManager's transaction if it has one. `em.execute` writes every value into the statement
 * as an escaped literal: fine for ids, slow for the megabyte of JSON a batch of events carries.
 * `?` marks a value; a value that is an array stands for a list of them (knex's rule).
 *
 * With `prepareAs`, the statement is prepared under that name once per pooled connection: PostgreSQL
 * parses it then, not on each request (parsing and planning were a large share of the project
 * list's statement). For statements most requests make, whose text never changes (so no array values) and
 * whose one plan suits every value: after five runs PostgreSQL may keep a generic plan, made without
 * the values. Behind PgBouncer in transaction mode, that needs its `max_prepared_statements` (1.21 or later).
 */
export async function executeBound<T>(em: EntityManager, sql: string, values: readonly unknown[], prepareAs?: string): Promise<T[]> {
  const query = em.getConnection().getKnex().raw(sql, values as never);
  if (prepareAs) query.options({ name: prepareAs });
  const transaction = em.getTransactionContext();
  if (transaction) query.transacting(transaction);
  const result = (await query) as { rows: T[] };
  return result.rows;
}
