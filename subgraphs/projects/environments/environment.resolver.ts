import { Args, Authorized, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { DemoDataStatus } from '../projects/demo-data.record.js';
import { ProjectRecord } from '../projects/project.record.js';
import { ProjectService } from '../projects/project.service.js';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { JSONScalar } from '../../shared/subgraph/scalars.js';
import { SettingsHistoryService } from '../settings/settings-history.service.js';
import { EnvironmentInProjectArgs, EnvironmentIntentArgs, SettingsAsOfArgs, UpdateEnvironmentArgs } from './environment.inputs.js';
import { EnvironmentRecord } from './environment.record.js';
import { EnvironmentService } from './environment.service.js';

@Resolver(() => EnvironmentRecord)
export class EnvironmentResolver {
  @Authorized('project:read')
  @Query(() => EnvironmentRecord)
  environment(@Args() args: EnvironmentInProjectArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new EnvironmentService(em).get(actor, args);
  }

  @Authorized('project:read')
  @Mutation(() => EnvironmentRecord, {
    description: 'Changes settings (project:read); the name and admin settings need project:write and admin.',
  })
  update_environment(@Args() args: UpdateEnvironmentArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new EnvironmentService(em).update(actor, args);
  }

  @Authorized('project:read')
  @Query(() => JSONScalar, { description: "The environment's settings as they were at an instant, rebuilt exactly from the activity log." })
  environment_settings_as_of(@Args() args: SettingsAsOfArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new SettingsHistoryService(em).asOf(actor, args);
  }

  @Authorized('project:read')
  @Query(() => DemoDataStatus, { description: 'Whether demo data is being generated for the environment.' })
  environment_is_generating_demo_data(@Args() args: EnvironmentInProjectArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new EnvironmentService(em).demoDataStatus(actor, args);
  }

  @Authorized('project:write')
  @Mutation(() => EnvironmentRecord, { description: 'A new public token for the conversations widget, in conversations_settings (admins).' })
  generate_environment_conversations_public_token(@Args() args: EnvironmentInProjectArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new EnvironmentService(em).generateConversationsToken(actor, args);
  }

  @Authorized('project:read')
  @Mutation(() => EnvironmentRecord, { description: 'Records that users want a product (project:read, as the API document says).' })
  add_environment_product_intent(@Args() args: EnvironmentIntentArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new EnvironmentService(em).productIntent(actor, args, 'add');
  }

  @Authorized('project:read')
  @Mutation(() => EnvironmentRecord, { description: 'Marks onboarding of a product as completed (project:read).' })
  complete_environment_product_onboarding(@Args() args: EnvironmentIntentArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new EnvironmentService(em).productIntent(actor, args, 'complete');
  }

  @Authorized('project:write')
  @Mutation(() => EnvironmentRecord, { description: 'Issues a new project API token; the old one stops working at once (admins).' })
  reset_environment_token(@Args() args: EnvironmentInProjectArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new EnvironmentService(em).changeToken(actor, args, 'reset_token');
  }

  @Authorized('project:write')
  @Mutation(() => EnvironmentRecord, { description: 'Issues a new secret token and keeps the previous one as the backup (admins).' })
  rotate_environment_secret_token(@Args() args: EnvironmentInProjectArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new EnvironmentService(em).changeToken(actor, args, 'rotate_secret_token');
  }

  @Authorized('project:write')
  @Mutation(() => EnvironmentRecord, { description: 'Forgets the backup secret token (admins); idempotent.' })
  delete_environment_secret_token_backup(@Args() args: EnvironmentInProjectArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new EnvironmentService(em).changeToken(actor, args, 'delete_secret_token_backup');
  }

  @Authorized('project:read')
  @FieldResolver(() => ProjectRecord)
  project(@Root() environment: EnvironmentRecord, @Ctx() { actor, em }: SubgraphContext) {
    return new ProjectService(em).get(actor, environment.project_id);
  }
}
