import type { EntityManager } from '@mikro-orm/postgresql';
import { isUuid } from '../shared/validation.js';
import { PersonalApiKeyService } from './personal-api-keys/personal-api-key.service.js';
import { UserService } from './users/user.service.js';

/** What other subgraphs may ask of accounts: plain objects in and out, no entities. */
export const accountsFacade = {
  /** The user with this email (created when new; an existing one must know its password). */
  async ensureUser(em: EntityManager, email: string, password: string): Promise<{ id: number; uuid: string; created: boolean }> {
    const { user, created } = await new UserService(em).ensure(email, password);
    return { id: user.id, uuid: user.uuid, created };
  },

  /**
   * A new key for the user with this label and scopes (the values issued before keep working; at
   * the user's limit the oldest such key makes room); the raw value is returned this once.
   */
  async issuePersonalApiKey(em: EntityManager, user: { id: number; uuid: string }, label: string, scopes: string[]): Promise<string> {
    const actor = { kind: 'personal_api_key' as const, user, scopes, organizations: {} };
    const key = await new PersonalApiKeyService(em).createReplacingOldest(actor, { label, scopes });
    return key.value;
  },

  /**
   * Ids of the users with these uuids (unknown ones left out). Plain SQL on the accounts schema,
   * so another subgraph's EntityManager can run it.
   */
  async userIdsByUuid(em: EntityManager, uuids: readonly string[]): Promise<Map<string, number>> {
    const wanted = [...new Set(uuids)].filter(isUuid);
    if (wanted.length === 0) return new Map();
    const rows = await em.getConnection().execute<{ id: number; uuid: string }[]>('select id, uuid from accounts.users where uuid in (?)', [wanted]);
    return new Map(rows.map((row) => [row.uuid, row.id]));
  },

  async countUsers(em: EntityManager): Promise<number> {
    return new UserService(em).count();
  },
};
