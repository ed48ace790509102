import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretBox } from '../../shared/secrets.js';

/**
 * Whether `box` opens the secrets the database holds (one environment's token stands for all:
 * every subgraph seals with the same SECRET_KEY); true in a database that holds none yet, or
 * whose projects schema is not made yet (a subgraph run alone may start first).
 */
export async function opensSealedSecrets(em: EntityManager, box: SecretBox): Promise<boolean> {
  const connection = em.getConnection();
  const [table] = await connection.execute<{ present: boolean }[]>(`select to_regclass('projects.environments') is not null as present`);
  if (!table?.present) return true;
  const [sample] = await connection.execute<{ sealed: string }[]>('select api_token_sealed as sealed from projects.environments order by id limit 1');
  if (!sample) return true;
  try {
    box.open(sample.sealed);
    return true;
  } catch {
    return false;
  }
}
