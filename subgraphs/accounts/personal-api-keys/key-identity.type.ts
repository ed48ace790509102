import { Directive, Field, ID, Int, ObjectType } from 'type-graphql';

/** The owner and scopes of a presented key: what the router builds the actor from. Internal. */
@ObjectType('PersonalApiKeyIdentity')
@Directive('@inaccessible')
export class KeyIdentityType {
  @Field(() => ID)
  key_id!: string;

  @Field(() => Int)
  user_id!: number;

  @Field()
  user_uuid!: string;

  @Field(() => [String])
  scopes!: string[];
}
