import type { EntityManager } from '@mikro-orm/postgresql';
import { MembershipLevel } from '../../shared/auth/actor.js';
import { EnvironmentService } from '../environments/environment.service.js';
import { Environment } from '../environments/environment.entity.js';
import { MembershipService, type MemberUser } from '../memberships/membership.service.js';
import { Membership } from '../memberships/membership.entity.js';
import { OrganizationService } from '../organizations/organization.service.js';
import { Project } from '../projects/project.entity.js';
import { ProjectService } from '../projects/project.service.js';

/** Where the bootstrap puts its user: an organization and a project, by name (the defaults when blank). */
export interface OwnerPlacementInput {
  organization?: string;
  project?: string;
}

/** The organization, project and environment the user owns, with the environment's project API key. */
export interface OwnerPlacement {
  organization_id: string;
  project_id: number;
  environment_id: number;
  project_api_key: string;
}

export const DEFAULT_ORGANIZATION = 'Default organization';
export const DEFAULT_PROJECT = 'Default project';

/**
 * Makes (or reuses) an organization of which the user is owner and a project with its first
 * environment, by name: the projects subgraph's part of the platform's bootstrap.
 */
export async function placeOwner(em: EntityManager, user: MemberUser, input: OwnerPlacementInput): Promise<OwnerPlacement> {
  const organizationName = input.organization?.trim() || DEFAULT_ORGANIZATION;
  const projectName = input.project?.trim() || DEFAULT_PROJECT;

  const membership = await em.findOne(
    Membership,
    { user_id: user.id, organization: { name: organizationName } },
    { populate: ['organization'] },
  );
  const organization = membership?.organization ?? (await new OrganizationService(em).create(organizationName));
  await new MembershipService(em).add(organization.id, user, MembershipLevel.owner);

  const existing = await em.findOne(Project, { organization, name: projectName }, { orderBy: { id: 'asc' } });
  let environment: Environment;
  if (existing) {
    environment = await em.findOneOrFail(Environment, { id: existing.id });
  } else {
    environment = (await new ProjectService(em).createWithEnvironment(organization.id, projectName)).environment;
  }

  return {
    organization_id: organization.id,
    project_id: environment.project.id,
    environment_id: environment.id,
    project_api_key: new EnvironmentService(em).apiToken(environment),
  };
}
