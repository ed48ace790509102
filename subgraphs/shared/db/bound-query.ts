import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Runs a statement with its values sent apart from its text, as PostgreSQL parameters, in the
 * EntityManager's transaction if it has one. `em.execute` writes every value into the statement
 * as an escaped literal: fine for ids, slow for the megabyte of JSON a batch of events carries.
 * `?` marks a value; a value that is an array stands for a list of them (knex's rule).
 */
export async function executeBound<T>(em: EntityManager, sql: string, values: readonly unknown[]): Promise<T[]> {
  const query = em.getConnection().getKnex().raw(sql, values as never);
  const transaction = em.getTransactionContext();
  if (transaction) query.transacting(transaction);
  const result = (await query) as { rows: T[] };
  return result.rows;
}
