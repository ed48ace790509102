import type { EntityManager } from '@mikro-orm/postgresql';
import { accountsFacade } from '../../accounts/facade.js';
import { MembershipLevel } from '../../shared/auth/actor.js';
import { EnvironmentService } from '../environments/environment.service.js';
import { Environment } from '../environments/environment.entity.js';
import { MembershipService } from '../memberships/membership.service.js';
import { Membership } from '../memberships/membership.entity.js';
import { OrganizationService } from '../organizations/organization.service.js';
import { Project } from '../projects/project.entity.js';
import { ProjectService } from '../projects/project.service.js';

export interface BootstrapInput {
  email: string;
  password: string;
  organization?: string;
  project?: string;
}

/** Exactly what `npm run bootstrap` prints and the embedded first start writes to bootstrap.json. */
export interface BootstrapResult {
  organization_id: string;
  project_id: number;
  environment_id: number;
  user_uuid: string;
  personal_api_key: string;
  project_api_key: string;
}

export const DEFAULT_ORGANIZATION = 'Default organization';
export const DEFAULT_PROJECT = 'Default project';
/** The label of the personal API keys the bootstrap makes (the oldest makes room at the user's key limit). */
export const BOOTSTRAP_KEY_LABEL = 'bootstrap';

/**
 * Makes (or reuses) a user, an organization of which the user is owner, a project with its first
 * environment, and the user's bootstrap personal API key with every scope, given a new value.
 */
export async function bootstrap(
  em: { accounts: EntityManager; projects: EntityManager },
  input: BootstrapInput,
): Promise<BootstrapResult> {
  const user = await accountsFacade.ensureUser(em.accounts, input.email, input.password);
  const organizationName = input.organization?.trim() || DEFAULT_ORGANIZATION;
  const projectName = input.project?.trim() || DEFAULT_PROJECT;

  const membership = await em.projects.findOne(
    Membership,
    { user_id: user.id, organization: { name: organizationName } },
    { populate: ['organization'] },
  );
  const organization = membership?.organization ?? (await new OrganizationService(em.projects).create(organizationName));
  await new MembershipService(em.projects).add(organization.id, user.id, MembershipLevel.owner);

  const existing = await em.projects.findOne(Project, { organization, name: projectName }, { orderBy: { id: 'asc' } });
  let environment: Environment;
  if (existing) {
    environment = await em.projects.findOneOrFail(Environment, { id: existing.id });
  } else {
    environment = (await new ProjectService(em.projects).createWithEnvironment(organization.id, projectName)).environment;
  }

  // A new key each run (only its hash is kept, so an earlier value cannot be shown again); those
  // printed before keep working, and at the 10-key limit the oldest bootstrap key makes room.
  const personalApiKey = await accountsFacade.issuePersonalApiKey(em.accounts, user, BOOTSTRAP_KEY_LABEL, ['*']);
  return {
    organization_id: organization.id,
    project_id: environment.project.id,
    environment_id: environment.id,
    user_uuid: user.uuid,
    personal_api_key: personalApiKey,
    project_api_key: new EnvironmentService(em.projects).apiToken(environment),
  };
}
