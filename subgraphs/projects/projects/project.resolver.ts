import { Args, ArgsType, Authorized, Ctx, Field, FieldResolver, Int, Query, Resolver, Root } from 'type-graphql';
import type { SubgraphContext } from '../../shared/context.js';
import { Organization } from '../organizations/organization.entity.js';
import { Project } from './project.entity.js';
import { ProjectService } from './project.service.js';

@ArgsType()
class ProjectArgs {
  @Field(() => Int)
  id!: number;
}

@Resolver(() => Project)
export class ProjectResolver {
  @Authorized('project:read')
  @Query(() => Project)
  project(@Args() { id }: ProjectArgs, @Ctx() { actor, em }: SubgraphContext): Promise<Project> {
    return new ProjectService(em).get(actor, id);
  }

  @Authorized('project:read')
  @FieldResolver(() => Organization)
  organization(@Root() project: Project, @Ctx() { em }: SubgraphContext): Promise<Organization> {
    return new ProjectService(em).organizationOf(project);
  }
}
