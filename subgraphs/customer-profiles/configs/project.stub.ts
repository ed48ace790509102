import { Directive, Field, Int, ObjectType } from 'type-graphql';

/** The projects subgraph's Project, referenced by id; the router fetches its fields there. */
@ObjectType('Project')
@Directive('@key(fields: "id", resolvable: false)')
export class ProjectStub {
  @Field(() => Int)
  id!: number;
}
