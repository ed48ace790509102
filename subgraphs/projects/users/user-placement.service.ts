import type { EntityManager } from '@mikro-orm/postgresql';
import type { EnvironmentPlacement } from '../../shared/auth/actor.js';
import { ValidationError } from '../../shared/errors.js';
import { isUuid } from '../../shared/validation.js';
import { placeEnvironments } from '../environments/environment-placement.js';
import type { UserOrganizationRecord } from './user-organization.record.js';

/** Where a user works: the current organization and environment (team) ids. */
export interface CurrentPlacement {
  organization_id: string | null;
  team_id: number | null;
}

/** A placement with its environment's project: what `@current` names in each kind of path. */
export interface ResolvedPlacement extends CurrentPlacement {
  project_id: number | null;
}

/**
 * A user's organizations and current place in them, as their account shows it. Plain SQL on the
 * projects schema, so the accounts subgraph can check a new choice through the facade.
 */
export class UserPlacementService {
  constructor(private readonly em: EntityManager) {}

  /** The user's organizations, in the order they joined them. */
  organizations(userId: number): Promise<UserOrganizationRecord[]> {
    return this.em.getConnection().execute<UserOrganizationRecord[]>(
      `select o.id, o.name, m.level as membership_level
         from projects.memberships m join projects.organizations o on o.id = m.organization_id
        where m.user_id = ? order by m.created_at, o.id`,
      [userId],
    );
  }

  /**
   * The stored choice where it still holds, as PostHog falls back: an organization the user has
   * left gives way to the first one they belong to, and an environment outside the current
   * organization to that organization's first one.
   */
  async resolve(userId: number, stored: CurrentPlacement): Promise<{ organization: UserOrganizationRecord | null; team: EnvironmentPlacement | null }> {
    const organizations = await this.organizations(userId);
    const organization = organizations.find((candidate) => candidate.id === stored.organization_id) ?? organizations[0] ?? null;
    if (!organization) return { organization: null, team: null };
    const team = stored.team_id === null ? undefined : (await placeEnvironments(this.em, [stored.team_id])).get(stored.team_id);
    if (team?.organization_id === organization.id) return { organization, team };
    return { organization, team: await this.firstEnvironment(organization.id) };
  }

  /** The placement `resolve` falls back to, with the environment's project: what `@current` names. */
  async current(userId: number, stored: CurrentPlacement): Promise<ResolvedPlacement> {
    const { organization, team } = await this.resolve(userId, stored);
    return { organization_id: organization?.id ?? null, project_id: team?.project_id ?? null, team_id: team?.id ?? null };
  }

  /** A new current organization: one the user belongs to; its first environment becomes current too. */
  async chooseOrganization(userId: number, organizationId: string): Promise<CurrentPlacement> {
    const attr = 'set_current_organization';
    const belongs = isUuid(organizationId) && (await this.organizations(userId)).some((organization) => organization.id === organizationId);
    if (!belongs) throw new ValidationError("Organization not found, or you don't belong to it.", attr, 'does_not_exist');
    return { organization_id: organizationId, team_id: (await this.firstEnvironment(organizationId))?.id ?? null };
  }

  /** A new current environment: one in an organization the user belongs to, which becomes current too. */
  async chooseTeam(userId: number, teamId: string): Promise<CurrentPlacement> {
    const id = /^\d{1,9}$/.test(teamId) ? Number(teamId) : NaN;
    const placement = Number.isSafeInteger(id) ? (await placeEnvironments(this.em, [id])).get(id) : undefined;
    const organizations = await this.organizations(userId);
    if (!placement || !organizations.some((organization) => organization.id === placement.organization_id)) {
      throw new ValidationError("Project not found, or you don't have access to it.", 'set_current_team', 'does_not_exist');
    }
    return { organization_id: placement.organization_id, team_id: placement.id };
  }

  private async firstEnvironment(organizationId: string): Promise<EnvironmentPlacement | null> {
    const [first] = await this.em.getConnection().execute<EnvironmentPlacement[]>(
      `select e.id, e.project_id, p.organization_id from projects.environments e
         join projects.projects p on p.id = e.project_id and p.deleted_at is null
        where p.organization_id = ? order by e.id limit 1`,
      [organizationId],
    );
    return first ?? null;
  }
}
