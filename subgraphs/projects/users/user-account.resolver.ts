import { Ctx, Directive, FieldResolver, Resolver, Root } from 'type-graphql';
import { grants } from '../../shared/auth/scopes.js';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { ProjectBasicRecord } from '../projects/project-basic.record.js';
import { basicEnvironmentRow } from '../projects/project-list.repository.js';
import { projectBasicRecord } from '../records.js';
import { UserAccountExtension } from './user-account.extension.js';
import { UserOrganizationRecord } from './user-organization.record.js';
import { UserPlacementService } from './user-placement.service.js';

const CURRENT = '@requires(fields: "current_organization_id current_team_id")';

/**
 * The organizations of a user's own account. Reached only through the accounts subgraph's
 * `me`/`user`, which check `user:read` and that the caller may see the account.
 */
@Resolver(() => UserAccountExtension)
export class UserAccountResolver {
  @Directive(CURRENT)
  @FieldResolver(() => UserOrganizationRecord, { nullable: true, description: 'The organization the user works in now.' })
  async organization(@Root() user: UserAccountExtension, @Ctx() { em }: SubgraphContext): Promise<UserOrganizationRecord | null> {
    return (await new UserPlacementService(em).resolve(user.id, current(user))).organization;
  }

  @Directive(CURRENT)
  @FieldResolver(() => ProjectBasicRecord, {
    nullable: true,
    description: "The environment (team) the user works in now, in the project list's form: for the user's own key with project:read (it holds the project token), else null.",
  })
  async team(@Root() user: UserAccountExtension, @Ctx() { actor, em }: SubgraphContext): Promise<ProjectBasicRecord | null> {
    if (actor.user?.id !== user.id || !grants(actor.scopes, 'project:read')) return null;
    const { team } = await new UserPlacementService(em).resolve(user.id, current(user));
    const row = team ? await basicEnvironmentRow(em, team.id) : undefined;
    return row ? projectBasicRecord(row) : null;
  }

  @FieldResolver(() => [UserOrganizationRecord], { description: 'Every organization the user belongs to.' })
  organizations(@Root() user: UserAccountExtension, @Ctx() { em }: SubgraphContext): Promise<UserOrganizationRecord[]> {
    return new UserPlacementService(em).organizations(user.id);
  }
}

function current(user: UserAccountExtension) {
  return { organization_id: user.current_organization_id ?? null, team_id: user.current_team_id ?? null };
}
