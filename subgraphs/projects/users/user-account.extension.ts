import { Directive, Field, Int, ObjectType } from 'type-graphql';

/**
 * The accounts subgraph's `UserAccount`, as this subgraph extends it: the user's id and the
 * current organization and environment ids it stores, from which the fields here are resolved.
 */
@ObjectType('UserAccount')
@Directive('@key(fields: "id")')
export class UserAccountExtension {
  @Field(() => Int)
  id!: number;

  @Directive('@external')
  @Field(() => String, { nullable: true })
  current_organization_id!: string | null;

  @Directive('@external')
  @Field(() => Int, { nullable: true })
  current_team_id!: number | null;
}
