import { Args, Authorized, Ctx, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { Paginated } from '../../shared/subgraph/pagination.js';
import { ActivityLogList } from '../activity/activity-log.record.js';
import {
  ChangeOrganizationArgs,
  CreateProjectArgs,
  ListProjectsArgs,
  ProjectActivityArgs,
  ProjectArgs,
  ProjectIntentArgs,
  UpdateProjectArgs,
} from './project.inputs.js';
import { DemoDataStatus } from './demo-data.record.js';
import { ProjectBasicRecord } from './project-basic.record.js';
import { ProjectRecord } from './project.record.js';
import { ProjectService } from './project.service.js';

@ObjectType('ProjectList')
export class ProjectList extends Paginated(ProjectBasicRecord) {}

@Resolver(() => ProjectRecord)
export class ProjectResolver {
  @Authorized('project:read')
  @Query(() => ProjectList, { description: "An organization's projects, newest first, in their basic form (the whole record is `project`)." })
  projects(@Args() args: ListProjectsArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new ProjectService(em).list(actor, args);
  }

  @Authorized('project:read')
  @Query(() => ProjectRecord)
  project(@Args() { id, organization_id }: ProjectArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new ProjectService(em).get(actor, id, organization_id);
  }

  @Authorized('activity_log:read')
  @Query(() => ActivityLogList, { description: "A project's activity log (settings and token changes), newest first." })
  project_activity(@Args() args: ProjectActivityArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new ProjectService(em).activity(actor, args);
  }

  @Authorized('project:write')
  @Mutation(() => ProjectRecord, { description: 'Creates a project and its first environment (an organization admin only).' })
  create_project(@Args() args: CreateProjectArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new ProjectService(em).create(actor, args);
  }

  @Authorized('project:read')
  @Mutation(() => ProjectRecord, {
    description: 'Changes settings (project:read, as the API document says); the name and admin settings need project:write and admin.',
  })
  update_project(@Args() args: UpdateProjectArgs, @Ctx() { actor, em, pubsub }: SubgraphContext) {
    return new ProjectService(em, pubsub).update(actor, args);
  }

  @Authorized('project:write')
  @Mutation(() => Boolean, { description: 'Deletes the project; its environments and their data are removed in the background (admins).' })
  async delete_project(@Args() args: ProjectArgs, @Ctx() { actor, em, pubsub }: SubgraphContext) {
    await new ProjectService(em, pubsub).delete(actor, args);
    return true;
  }

  @Authorized('project:write')
  @Mutation(() => ProjectRecord, { description: 'Moves the project and all its environments to another organization (admin of both).' })
  change_project_organization(@Args() args: ChangeOrganizationArgs, @Ctx() { actor, em, pubsub }: SubgraphContext) {
    return new ProjectService(em, pubsub).changeOrganization(actor, args);
  }

  @Authorized('project:read')
  @Query(() => DemoDataStatus, { description: 'Whether demo data is being generated for the project.' })
  project_is_generating_demo_data(@Args() args: ProjectArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new ProjectService(em).demoDataStatus(actor, args);
  }

  @Authorized('project:write')
  @Mutation(() => ProjectRecord, { description: 'A new public token for the conversations widget, in conversations_settings (admins).' })
  generate_project_conversations_public_token(@Args() args: ProjectArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new ProjectService(em).generateConversationsToken(actor, args);
  }

  @Authorized('project:read')
  @Mutation(() => ProjectRecord, { description: 'Records that users want a product (project:read, as the API document says).' })
  add_project_product_intent(@Args() args: ProjectIntentArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new ProjectService(em).productIntent(actor, args, 'add');
  }

  @Authorized('project:read')
  @Mutation(() => ProjectRecord, { description: 'Marks onboarding of a product as completed (project:read).' })
  complete_project_product_onboarding(@Args() args: ProjectIntentArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new ProjectService(em).productIntent(actor, args, 'complete');
  }

  @Authorized('project:write')
  @Mutation(() => ProjectRecord, { description: 'Issues a new project API token; the old one stops working at once (admins).' })
  reset_project_token(@Args() args: ProjectArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new ProjectService(em).changeToken(actor, args, 'reset_token');
  }

  @Authorized('project:write')
  @Mutation(() => ProjectRecord, { description: 'Issues a new secret token and keeps the previous one as the backup (admins).' })
  rotate_project_secret_token(@Args() args: ProjectArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new ProjectService(em).changeToken(actor, args, 'rotate_secret_token');
  }

  @Authorized('project:write')
  @Mutation(() => ProjectRecord, { description: 'Forgets the backup secret token (admins); idempotent.' })
  delete_project_secret_token_backup(@Args() args: ProjectArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new ProjectService(em).changeToken(actor, args, 'delete_secret_token_backup');
  }
}
