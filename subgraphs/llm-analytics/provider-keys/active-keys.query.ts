import type { EntityManager } from '@mikro-orm/postgresql';
import { secretBox } from '../../shared/secrets.js';
import { ValidationError } from '../../shared/errors.js';
import type { Provider } from '../providers/provider.catalog.js';

/**
 * The environment's active keys, read with plain SQL on schema-qualified tables: model choice runs
 * for other subgraphs too (the assistant, through the facade), on their own connections, where
 * this subgraph's entities are unknown.
 */
export async function activeProviders(em: EntityManager, environmentId: number): Promise<Provider[]> {
  const rows = await em
    .getConnection()
    .execute<{ provider: Provider }[]>('select provider from llm_analytics.active_provider_keys where environment_id = ?', [environmentId]);
  return rows.map((row) => row.provider);
}

/** The active key of a provider, opened for a call; a key sealed under another SECRET_KEY is a 400. */
export async function activeKey(em: EntityManager, environmentId: number, provider: Provider): Promise<{ id: string; apiKey: string } | null> {
  const [row] = await em.getConnection().execute<{ id: string; name: string; api_key_sealed: string }[]>(
    `select k.id, k.name, k.api_key_sealed
       from llm_analytics.active_provider_keys a
       join llm_analytics.provider_keys k on k.id = a.key_id
      where a.environment_id = ? and a.provider = ?`,
    [environmentId, provider],
  );
  if (!row) return null;
  const apiKey = openSealed(row.api_key_sealed);
  if (apiKey === null) throw new ValidationError(`${row.name}: ${UNREADABLE_KEY}`, 'api_key', 'key_unreadable');
  return { id: row.id, apiKey };
}

/** Records that a call used the key. */
export async function markKeyUsed(em: EntityManager, keyId: string): Promise<void> {
  await em.getConnection().execute('update llm_analytics.provider_keys set last_used_at = now() where id = ?', [keyId]);
}

export const UNREADABLE_KEY = "The stored key cannot be decrypted with this server's SECRET_KEY; enter the key again.";

/** A sealed key in clear, or null when this SECRET_KEY cannot open it. */
export function openSealed(sealed: string): string | null {
  try {
    return secretBox().open(sealed);
  } catch {
    return null;
  }
}
