import { Field, ID, ObjectType } from 'type-graphql';
import { UserStub } from './user.stub.js';

/** A provider key as the API shows it: never the key, only its masked form. */
@ObjectType('ProviderKey')
export class ProviderKeyRecord {
  @Field(() => ID)
  id!: string;

  @Field({ description: '`openai`, `anthropic`, `gemini` or `openrouter`.' })
  provider!: string;

  @Field()
  name!: string;

  @Field({ description: '`unknown`, `ok`, `invalid` or `error`, from the last check of the key.' })
  state!: string;

  @Field(() => String, { nullable: true, description: 'Why the last check did not pass.' })
  error_message!: string | null;

  @Field({ description: 'The first four and last four characters of the key (`****` for short keys).' })
  api_key_masked!: string;

  @Field({ description: "Whether this is the environment's active key for its provider." })
  set_as_active!: boolean;

  @Field()
  created_at!: Date;

  @Field(() => UserStub, { nullable: true })
  created_by!: UserStub | null;

  @Field(() => Date, { nullable: true, description: 'When a summary or model list last used the key.' })
  last_used_at!: Date | null;
}

@ObjectType('ProviderKeyValidation')
export class KeyVerdictRecord {
  @Field({ description: '`ok`, `invalid` or `error`.' })
  state!: string;

  @Field(() => String, { nullable: true })
  error_message!: string | null;
}

@ObjectType('LlmModel')
export class ModelRecord {
  @Field()
  id!: string;

  @Field({ description: "Whether it is the platform's default model for its provider." })
  posthog_available!: boolean;
}

@ObjectType('LlmModelList')
export class ModelListRecord {
  @Field(() => [ModelRecord])
  models!: ModelRecord[];
}
