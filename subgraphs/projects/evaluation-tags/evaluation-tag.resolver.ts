import { Args, Authorized, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { EnvironmentInProjectArgs } from '../environments/environment.inputs.js';
import { DefaultEvaluationTags, EvaluationTagAdded, EvaluationTagArgs } from './evaluation-tag.record.js';
import { EvaluationTagService } from './evaluation-tag.service.js';

@Resolver()
export class EvaluationTagResolver {
  @Authorized('project:read')
  @Query(() => DefaultEvaluationTags, { description: "The environment's default evaluation tags for new feature flags." })
  environment_default_evaluation_tags(@Args() args: EnvironmentInProjectArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new EvaluationTagService(em).list(actor, args);
  }

  @Authorized('project:write')
  @Mutation(() => EvaluationTagAdded, { description: 'Adds a default evaluation tag (at most 10).' })
  add_environment_default_evaluation_tag(@Args() args: EvaluationTagArgs, @Ctx() { actor, em }: SubgraphContext) {
    return new EvaluationTagService(em).add(actor, args);
  }

  @Authorized('project:write')
  @Mutation(() => Boolean, { description: 'Removes a default evaluation tag.' })
  async remove_environment_default_evaluation_tag(@Args() args: EvaluationTagArgs, @Ctx() { actor, em }: SubgraphContext) {
    await new EvaluationTagService(em).remove(actor, args);
    return true;
  }
}
