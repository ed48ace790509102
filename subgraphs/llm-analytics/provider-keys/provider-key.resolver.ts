import { Args, Authorized, Ctx, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { SubgraphContext } from '../../shared/subgraph/context.js';
import { Paginated } from '../../shared/subgraph/pagination.js';
import { ModelsService } from '../models/models.service.js';
import { CreateProviderKeyArgs, ListProviderKeysArgs, ModelsArgs, ProviderKeyArgs, UpdateProviderKeyArgs, ValidateKeyArgs } from './provider-key.inputs.js';
import { KeyVerdictRecord, ModelListRecord, ProviderKeyRecord } from './provider-key.record.js';
import { ProviderKeyService } from './provider-key.service.js';

@ObjectType('ProviderKeyList')
export class ProviderKeyList extends Paginated(ProviderKeyRecord) {}

const service = ({ em }: SubgraphContext) => new ProviderKeyService(em);

@Resolver(() => ProviderKeyRecord)
export class ProviderKeyResolver {
  @Authorized('llm_provider_key:read')
  @Query(() => ProviderKeyList, { description: "The environment's language-model provider keys, newest first." })
  llm_provider_keys(@Args() args: ListProviderKeysArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).list(ctx.actor, args);
  }

  @Authorized('llm_provider_key:read')
  @Query(() => ProviderKeyRecord)
  llm_provider_key(@Args() { project_id, id }: ProviderKeyArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).get(ctx.actor, project_id, id);
  }

  @Authorized('llm_provider_key:write')
  @Mutation(() => ProviderKeyRecord, { description: 'Stores a key once the provider has accepted it.' })
  create_llm_provider_key(@Args() args: CreateProviderKeyArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).create(ctx.actor, args);
  }

  @Authorized('llm_provider_key:write')
  @Mutation(() => ProviderKeyRecord, { description: 'Renames, replaces (after a check) or (de)activates a key.' })
  update_llm_provider_key(@Args() args: UpdateProviderKeyArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).update(ctx.actor, args);
  }

  @Authorized('llm_provider_key:write')
  @Mutation(() => Boolean)
  async delete_llm_provider_key(@Args() { project_id, id }: ProviderKeyArgs, @Ctx() ctx: SubgraphContext) {
    await service(ctx).delete(ctx.actor, project_id, id);
    return true;
  }

  @Authorized('llm_provider_key:write')
  @Mutation(() => ProviderKeyRecord, { description: 'Checks the stored key with its provider again and records the verdict.' })
  validate_llm_provider_key(@Args() { project_id, id }: ProviderKeyArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).revalidate(ctx.actor, project_id, id);
  }

  @Authorized('llm_provider_key:write')
  @Mutation(() => KeyVerdictRecord, { description: 'Checks a key with its provider without storing it.' })
  llm_provider_key_validation(@Args() args: ValidateKeyArgs, @Ctx() ctx: SubgraphContext) {
    return service(ctx).check(ctx.actor, args);
  }

  @Authorized('llm_provider_key:read')
  @Query(() => ModelListRecord, { description: "A provider's models: live with a stored key, else a curated list." })
  llm_models(@Args() args: ModelsArgs, @Ctx() ctx: SubgraphContext) {
    return new ModelsService(ctx.em).list(ctx.actor, args);
  }
}
