import { Args, Authorized, Ctx, ObjectType, Query, Resolver } from 'type-graphql';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { Paginated } from '../../shared/subgraph/pagination.js';
import { ListPersonsArgs, PersonArgs } from './person.inputs.js';
import { PersonRecord } from './person.record.js';
import { PersonService } from './person.service.js';

@ObjectType('PersonList')
export class PersonList extends Paginated(PersonRecord) {}

const service = ({ em }: SubgraphContext) => new PersonService(em);

@Resolver(() => PersonRecord)
export class PersonResolver {
  @Authorized('person:read')
  @Query(() => PersonList, { description: "An environment's persons, newest first." })
  persons(@Args() args: ListPersonsArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).list(ctx.actor, args);
  }

  @Authorized('person:read')
  @Query(() => PersonRecord, { description: 'One person, by its uuid.' })
  person(@Args() { project_id, id }: PersonArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).get(ctx.actor, project_id, id);
  }
}
