import type { EntityManager } from '@mikro-orm/postgresql';
import { PersonalApiKeyService } from './personal-api-keys/personal-api-key.service.js';
import { UserService } from './users/user.service.js';

/** What other subgraphs may ask of accounts: plain objects in and out, no entities. */
export const accountsFacade = {
  /** The user with this email (created when new; an existing one must know its password). */
  async ensureUser(em: EntityManager, email: string, password: string): Promise<{ id: number; uuid: string; created: boolean }> {
    const { user, created } = await new UserService(em).ensure(email, password);
    return { id: user.id, uuid: user.uuid, created };
  },

  /** A new personal API key for a user; the raw value is returned this once. */
  async createPersonalApiKey(em: EntityManager, user: { id: number; uuid: string }, label: string, scopes: string[]): Promise<string> {
    const actor = { kind: 'personal_api_key' as const, user, scopes, organizations: {} };
    const key = await new PersonalApiKeyService(em).create(actor, { label, scopes });
    return key.value;
  },

  async countUsers(em: EntityManager): Promise<number> {
    return new UserService(em).count();
  },
};
