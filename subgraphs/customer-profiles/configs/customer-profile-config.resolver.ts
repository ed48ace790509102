import { Args, Authorized, Ctx, FieldResolver, Mutation, ObjectType, Query, Resolver, Root, Subscription } from 'type-graphql';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { Paginated } from '../../shared/subgraph/pagination.js';
import type { Envelope } from '../../shared/pubsub/pubsub.js';
import { CustomerProfileConfig } from './customer-profile-config.entity.js';
import { CustomerProfileConfigChange, type ChangePayload } from './customer-profile-config.event.js';
import {
  CreateCustomerProfileConfigArgs,
  CustomerProfileConfigArgs,
  EnvironmentArgs,
  ListCustomerProfileConfigsArgs,
  UpdateCustomerProfileConfigArgs,
} from './customer-profile-config.inputs.js';
import { CustomerProfileConfigService } from './customer-profile-config.service.js';
import { ProjectStub } from './project.stub.js';

@ObjectType('CustomerProfileConfigList')
export class CustomerProfileConfigList extends Paginated(CustomerProfileConfig) {}

const service = ({ em, pubsub }: SubgraphContext) => new CustomerProfileConfigService(em, pubsub);

@Resolver(() => CustomerProfileConfig)
export class CustomerProfileConfigResolver {
  @Authorized('customer_profile_config:read')
  @Query(() => CustomerProfileConfigList, { description: 'Customer profile configs of an environment, newest first.' })
  customer_profile_configs(@Args() args: ListCustomerProfileConfigsArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).list(ctx.actor, args);
  }

  @Authorized('customer_profile_config:read')
  @Query(() => CustomerProfileConfig)
  customer_profile_config(@Args() { project_id, id }: CustomerProfileConfigArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).get(ctx.actor, project_id, id);
  }

  @Authorized('customer_profile_config:write')
  @Mutation(() => CustomerProfileConfig)
  create_customer_profile_config(@Args() args: CreateCustomerProfileConfigArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).create(ctx.actor, args);
  }

  @Authorized('customer_profile_config:write')
  @Mutation(() => CustomerProfileConfig, { description: 'Changes the given fields; the others stay.' })
  update_customer_profile_config(@Args() args: UpdateCustomerProfileConfigArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).update(ctx.actor, args);
  }

  @Authorized('customer_profile_config:write')
  @Mutation(() => Boolean)
  async delete_customer_profile_config(@Args() { project_id, id }: CustomerProfileConfigArgs, @Ctx() ctx: SubgraphContext) {
    await service(ctx).delete(ctx.actor, project_id, id);
    return true;
  }

  @Authorized('customer_profile_config:read')
  @Subscription(() => CustomerProfileConfigChange, {
    description: 'Creates, updates and deletes of the configs of an environment, as they happen. Ends with an `events_lost` error when events may have been missed (the pub/sub was away): read the current state again and subscribe again.',
    subscribe: ({ args, context }) => service(context as SubgraphContext).subscribe((context as SubgraphContext).actor, (args as EnvironmentArgs).project_id),
  })
  customer_profile_config_changed(@Root() event: Envelope<ChangePayload>, @Args() _args: EnvironmentArgs): CustomerProfileConfigChange {
    return { sequence: event.sequence, ...event.payload };
  }

  @FieldResolver(() => ProjectStub, { nullable: true, description: 'The project the config belongs to.' })
  // Typed by the one field read: a class here would make type-graphql copy each plain row of a
  // list into a new entity (readPage hands over rows, not entities).
  project(@Root() config: Pick<CustomerProfileConfig, 'project_id'>): ProjectStub {
    return { id: config.project_id };
  }
}
