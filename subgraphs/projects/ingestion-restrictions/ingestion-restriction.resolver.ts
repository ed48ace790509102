import { Args, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { EnvironmentInProjectArgs } from '../environments/environment.inputs.js';
import { IngestionRestrictionRecord, RestrictionTypeArgs, SetIngestionRestrictionArgs } from './ingestion-restriction.record.js';
import { IngestionRestrictionService } from './ingestion-restriction.service.js';

@Resolver()
export class IngestionRestrictionResolver {
  @Authorized('project:read')
  @Query(() => [IngestionRestrictionRecord], { description: "Restrictions on the ingestion of the environment's events." })
  environment_event_ingestion_restrictions(@Args() args: EnvironmentInProjectArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new IngestionRestrictionService(em).list(actor, args);
  }

  @Authorized('project:write')
  @Mutation(() => [IngestionRestrictionRecord], { description: 'Sets a restriction, replacing one of the same type (admins).' })
  set_environment_event_ingestion_restriction(@Args() args: SetIngestionRestrictionArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new IngestionRestrictionService(em).set(actor, args);
  }

  @Authorized('project:write')
  @Mutation(() => Boolean, { description: 'Removes a restriction (admins).' })
  async remove_environment_event_ingestion_restriction(@Args() args: RestrictionTypeArgs, @Ctx() { actor, em }: SubgraphContext) {
    await new IngestionRestrictionService(em).remove(actor, args);
    return true;
  }
}
