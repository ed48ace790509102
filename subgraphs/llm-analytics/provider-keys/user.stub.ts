import { Directive, Field, Int, ObjectType } from 'type-graphql';

/** The accounts subgraph's User, referenced by id; the router fetches its brief form there. */
@ObjectType('User')
@Directive('@key(fields: "id", resolvable: false)')
export class UserStub {
  @Field(() => Int)
  id!: number;
}
