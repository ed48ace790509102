import { ArgsType, Field, ID } from 'type-graphql';
import { EnvironmentArgs, EnvironmentPageArgs } from '../../shared/subgraph/environment.args.js';

export { EnvironmentArgs };

@ArgsType()
export class ListProviderKeysArgs extends EnvironmentPageArgs {}

@ArgsType()
export class ProviderKeyArgs extends EnvironmentArgs {
  @Field(() => ID)
  id!: string;
}

@ArgsType()
export class CreateProviderKeyArgs extends EnvironmentArgs {
  @Field({ description: '`openai`, `anthropic`, `gemini` (or `google`) or `openrouter`.' })
  provider!: string;

  @Field({ description: 'A label for the key (at most 255 characters).' })
  name!: string;

  @Field({ nullable: true, description: 'The key itself: checked with the provider first, then stored encrypted and never shown again.' })
  api_key?: string;

  @Field({ nullable: true, defaultValue: false, description: "Make it the environment's active key for its provider." })
  set_as_active?: boolean;
}

@ArgsType()
export class UpdateProviderKeyArgs extends ProviderKeyArgs {
  @Field({ nullable: true, description: 'A key keeps its provider; the same one (or its alias) is accepted.' })
  provider?: string;

  @Field({ nullable: true })
  name?: string;

  @Field({ nullable: true, description: 'A new key, checked with the provider before it replaces the old one.' })
  api_key?: string;

  @Field({ nullable: true, description: 'true makes it the active key for its provider; false stops it being active.' })
  set_as_active?: boolean;
}

@ArgsType()
export class ValidateKeyArgs extends EnvironmentArgs {
  @Field({ nullable: true, description: 'The key to check (not stored).' })
  api_key?: string;

  @Field({ nullable: true, defaultValue: 'openai' })
  provider?: string;
}

@ArgsType()
export class ModelsArgs extends EnvironmentArgs {
  @Field({ nullable: true, description: 'The provider whose models to list (required).' })
  provider?: string;

  @Field(() => ID, { nullable: true, description: "A stored key: the provider's live list for it; without one, a curated list." })
  key_id?: string;
}
