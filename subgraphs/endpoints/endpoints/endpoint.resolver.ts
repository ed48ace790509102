import { Args, Authorized, Ctx, Mutation, Query, Resolver, Root, Subscription } from 'type-graphql';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import type { Envelope } from '../../shared/pubsub/pubsub.js';
import { JSONScalar } from '../../shared/subgraph/scalars.js';
import { MaterializationChange, type MaterializationPayload } from '../materialization/materialization.event.js';
import { CreateEndpointArgs, EndpointArgs, EndpointVersionArgs, ListEndpointsArgs, UpdateEndpointArgs } from './endpoint.inputs.js';
import { EndpointList, EndpointRecord, EndpointVersionRecord, MaterializationRecord } from './endpoint.record.js';
import { EndpointService } from './endpoint.service.js';

const service = ({ em, pubsub, log }: SubgraphContext) => new EndpointService(em, pubsub, log);

@Resolver(() => EndpointRecord)
export class EndpointResolver {
  @Authorized('endpoint:read')
  @Query(() => EndpointList, { description: 'Saved endpoints of an environment, newest first (not paginated, as PostHog).' })
  async endpoints(@Args() args: ListEndpointsArgs, @Ctx() ctx: SubgraphContext): Promise<EndpointList> {
    return { results: await service(ctx).list(ctx.actor, args) };
  }

  @Authorized('endpoint:read')
  @Query(() => EndpointRecord)
  endpoint(@Args() { project_id, name }: EndpointArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).get(ctx.actor, project_id, name);
  }

  @Authorized('endpoint:write')
  @Mutation(() => EndpointRecord, { description: 'Saves a named query as an endpoint (version 1).' })
  create_endpoint(@Args() args: CreateEndpointArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).create(ctx.actor, args);
  }

  @Authorized('endpoint:write')
  @Mutation(() => EndpointRecord, { description: 'Changes the given fields; a query that really changes makes a new version.' })
  update_endpoint(@Args() args: UpdateEndpointArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).update(ctx.actor, args);
  }

  @Authorized('endpoint:write')
  @Mutation(() => Boolean, { description: 'Deletes the endpoint, its versions and its materialized data.' })
  async delete_endpoint(@Args() { project_id, name }: EndpointArgs, @Ctx() ctx: SubgraphContext) {
    await service(ctx).delete(ctx.actor, project_id, name);
    return true;
  }

  @Authorized('endpoint:read')
  @Query(() => [EndpointVersionRecord], { description: "An endpoint's versions, newest first." })
  endpoint_versions(@Args() { project_id, name }: EndpointArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).versions(ctx.actor, project_id, name);
  }

  @Authorized('endpoint:read')
  @Query(() => EndpointVersionRecord)
  endpoint_version(@Args() { project_id, name, version_number }: EndpointVersionArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).versionRecord(ctx.actor, project_id, name, version_number);
  }

  @Authorized('endpoint:read')
  @Query(() => JSONScalar, { description: 'An OpenAPI 3.0 document of the endpoint: its variables and result columns typed, for generating clients.' })
  endpoint_openapi(@Args() { project_id, name }: EndpointArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).openapi(ctx.actor, project_id, name);
  }

  @Authorized('endpoint:read')
  @Query(() => MaterializationRecord, { description: "Where the current version's materialization stands." })
  endpoint_materialization_status(@Args() { project_id, name }: EndpointArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).materializationStatus(ctx.actor, project_id, name);
  }

  @Authorized('endpoint:read')
  @Subscription(() => MaterializationChange, {
    name: 'endpoint_materialization_status',
    description: "Each change of the endpoint's materialization (queued, running, completed, failed, switched off), as it happens. Ends with an `events_lost` error when events may have been missed (the pub/sub was away): read the current state again and subscribe again.",
    subscribe: ({ args, context }) => {
      const { project_id, name } = args as EndpointArgs;
      return service(context as SubgraphContext).subscribeMaterialization((context as SubgraphContext).actor, project_id, name);
    },
  })
  endpoint_materialization_changed(@Root() event: Envelope<MaterializationPayload>, @Args() _args: EndpointArgs): MaterializationChange {
    return { sequence: event.sequence, ...event.payload };
  }
}
