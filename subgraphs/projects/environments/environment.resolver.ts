import { Args, ArgsType, Authorized, Ctx, Field, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import type { SubgraphContext } from '../../shared/context.js';
import { Project } from '../projects/project.entity.js';
import { Environment } from './environment.entity.js';
import { EnvironmentService } from './environment.service.js';

@ArgsType()
class EnvironmentArgs {
  @Field(() => Int)
  id!: number;
}

@Resolver(() => Environment)
export class EnvironmentResolver {
  @Authorized('project:read')
  @Query(() => Environment)
  environment(@Args() { id }: EnvironmentArgs, @Ctx() { actor, em }: SubgraphContext): Promise<Environment> {
    return new EnvironmentService(em).get(actor, id);
  }

  @Authorized('project:read')
  @FieldResolver(() => Project)
  project(@Root() environment: Environment, @Ctx() { em }: SubgraphContext): Promise<Project> {
    return new EnvironmentService(em).projectOf(environment);
  }

  @Authorized('project:read')
  @FieldResolver(() => String, { description: 'The project API token (`phc_`), used by SDKs and /batch/.' })
  api_token(@Root() environment: Environment, @Ctx() { em }: SubgraphContext): string {
    return new EnvironmentService(em).apiToken(environment);
  }
}
