import { Args, Authorized, Ctx, Directive, Mutation, Query, Resolver } from 'type-graphql';
import { ALL_SCOPES, INTERNAL } from '../../shared/auth/scopes.js';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { KeyIdentityType } from './key-identity.type.js';
import { NewPersonalApiKey } from './new-personal-api-key.type.js';
import { PersonalApiKey } from './personal-api-key.entity.js';
import { AuthenticateArgs, CreatePersonalApiKeyArgs, PersonalApiKeyIdArgs, UpdatePersonalApiKeyArgs } from './personal-api-key.inputs.js';
import { PersonalApiKeyService } from './personal-api-key.service.js';

/** Managing one's own personal API keys needs a key that holds every scope (`*`). */
@Resolver(() => PersonalApiKey)
export class PersonalApiKeyResolver {
  @Authorized(ALL_SCOPES)
  @Query(() => [PersonalApiKey], { description: "The caller's personal API keys, newest first (values hidden)." })
  personal_api_keys(@Ctx() { actor, em }: SubgraphContext): Promise<PersonalApiKey[]> {
    return new PersonalApiKeyService(em).list(actor);
  }

  @Authorized(ALL_SCOPES)
  @Query(() => PersonalApiKey, { description: 'One of the caller\'s personal API keys.' })
  personal_api_key(@Args() { id }: PersonalApiKeyIdArgs, @Ctx() { actor, em }: SubgraphContext): Promise<PersonalApiKey> {
    return new PersonalApiKeyService(em).get(actor, id);
  }

  @Authorized(ALL_SCOPES)
  @Mutation(() => NewPersonalApiKey, { description: 'Creates a key; its `value` is in this answer and never again.' })
  create_personal_api_key(@Args() args: CreatePersonalApiKeyArgs, @Ctx() { actor, em }: SubgraphContext): Promise<NewPersonalApiKey> {
    return new PersonalApiKeyService(em).create(actor, args);
  }

  @Authorized(ALL_SCOPES)
  @Mutation(() => PersonalApiKey, { description: 'Renames a key, or changes its scopes.' })
  update_personal_api_key(@Args() { id, label, scopes }: UpdatePersonalApiKeyArgs, @Ctx() { actor, em, pubsub }: SubgraphContext): Promise<PersonalApiKey> {
    return new PersonalApiKeyService(em, pubsub).update(actor, id, { label, scopes });
  }

  @Authorized(ALL_SCOPES)
  @Mutation(() => NewPersonalApiKey, { description: 'Gives a key a new value (same label and scopes); the old value stops working at once.' })
  roll_personal_api_key(@Args() { id }: PersonalApiKeyIdArgs, @Ctx() { actor, em, pubsub }: SubgraphContext): Promise<NewPersonalApiKey> {
    return new PersonalApiKeyService(em, pubsub).roll(actor, id);
  }

  @Authorized(ALL_SCOPES)
  @Mutation(() => Boolean, { description: 'Revokes a key at once.' })
  async delete_personal_api_key(@Args() { id }: PersonalApiKeyIdArgs, @Ctx() { actor, em, pubsub }: SubgraphContext): Promise<boolean> {
    await new PersonalApiKeyService(em, pubsub).delete(actor, id);
    return true;
  }

  @Authorized(INTERNAL)
  @Directive('@inaccessible')
  @Query(() => KeyIdentityType, { nullable: true, description: 'Internal: who a presented key belongs to.' })
  _authenticate_personal_api_key(@Args() { value }: AuthenticateArgs, @Ctx() { em }: SubgraphContext): Promise<KeyIdentityType | null> {
    return new PersonalApiKeyService(em).authenticate(value);
  }
}
