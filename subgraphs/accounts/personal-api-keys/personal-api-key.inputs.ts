import { ArgsType, Field, ID } from 'type-graphql';

@ArgsType()
export class CreatePersonalApiKeyArgs {
  @Field({ description: 'A name for the key (at most 40 characters).' })
  label!: string;

  @Field(() => [String], { description: 'Scopes such as "project:read", or "*" for all of them.' })
  scopes!: string[];
}

@ArgsType()
export class PersonalApiKeyIdArgs {
  @Field(() => ID, { description: 'The key id, or `@current` for the key of this request.' })
  id!: string;
}

@ArgsType()
export class UpdatePersonalApiKeyArgs extends PersonalApiKeyIdArgs {
  @Field(() => String, { nullable: true, description: 'The new name (at most 40 characters); unchanged when left out.' })
  label?: string | null;

  @Field(() => [String], { nullable: true, description: 'The new scopes (they apply within a second); unchanged when left out.' })
  scopes?: string[] | null;
}

@ArgsType()
export class AuthenticateArgs {
  @Field({ description: 'A presented personal API key.' })
  value!: string;
}
