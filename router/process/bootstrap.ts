import type { EntityManager } from '@mikro-orm/postgresql';
import { accountsFacade } from '../../subgraphs/accounts/facade.js';
import { projectsFacade, type OwnerPlacement } from '../../subgraphs/projects/facade.js';

export interface BootstrapInput {
  email: string;
  password: string;
  organization?: string;
  project?: string;
}

/** Exactly what `npm run bootstrap` prints and the embedded first start writes to bootstrap.json. */
export interface BootstrapResult extends OwnerPlacement {
  user_uuid: string;
  personal_api_key: string;
}

/** The label of the personal API keys the bootstrap makes (the oldest makes room at the user's key limit). */
export const BOOTSTRAP_KEY_LABEL = 'bootstrap';

/**
 * Makes (or reuses) a user, an organization of which the user is owner, a project with its first
 * environment, and the user's bootstrap personal API key with every scope, given a new value. It
 * spans two subgraphs, so it belongs to neither: each does its part through its facade.
 */
export async function bootstrap(em: { accounts: EntityManager; projects: EntityManager }, input: BootstrapInput): Promise<BootstrapResult> {
  const user = await accountsFacade.ensureUser(em.accounts, input.email, input.password);
  return bootstrapUser(em, user, input);
}

/** The bootstrap of a user that exists: its organization, project and a new bootstrap key. */
export async function bootstrapUser(
  em: { accounts: EntityManager; projects: EntityManager },
  user: { id: number; uuid: string },
  input: Omit<BootstrapInput, 'email' | 'password'>,
): Promise<BootstrapResult> {
  const placement = await projectsFacade.placeOwner(em.projects, user, input);
  // A new key each run (only its hash is kept, so an earlier value cannot be shown again); those
  // printed before keep working, and at the 10-key limit the oldest bootstrap key makes room.
  const personalApiKey = await accountsFacade.issuePersonalApiKey(em.accounts, user, BOOTSTRAP_KEY_LABEL, ['*']);
  const { organization_id, project_id, environment_id, project_api_key } = placement;
  return { organization_id, project_id, environment_id, user_uuid: user.uuid, personal_api_key: personalApiKey, project_api_key };
}
