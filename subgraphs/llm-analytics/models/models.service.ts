import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/auth/actor.js';
import { UpstreamError, ValidationError } from '../../shared/errors.js';
import { markKeyUsed } from '../provider-keys/active-keys.query.js';
import { ProviderKeyService } from '../provider-keys/provider-key.service.js';
import { validProvider } from '../provider-keys/provider-key.rules.js';
import { listModels, listOpenRouterModels } from '../providers/provider.api.js';
import { PROVIDER_PROFILES, type Provider } from '../providers/provider.catalog.js';
import { failureKind } from '../providers/provider.errors.js';
import type { ModelListRecord } from '../provider-keys/provider-key.record.js';

/** OpenAI lists embeddings, audio and image models too; only chat models make sense here. */
const OPENAI_CHAT = /^(gpt-|o1|o3|o4)/;

export class ModelsService {
  constructor(private readonly em: EntityManager) {}

  /** With a stored key, the provider's live list; without one, the curated list. */
  async list(actor: Actor, args: { project_id: number; provider?: string | null; key_id?: string | null }): Promise<ModelListRecord> {
    const keys = new ProviderKeyService(this.em);
    await keys.environment(actor, args.project_id);
    if (!args.provider) throw new ValidationError('provider query param is required', 'provider', 'required');
    const provider = validProvider(args.provider);
    const profile = PROVIDER_PROFILES[provider];
    if (!args.key_id) return { models: profile.curated.map((id) => ({ id, posthog_available: id === profile.defaultModel })) };
    const { key, apiKey } = await keys.usableKey(actor, args.project_id, args.key_id);
    if (key.provider !== provider) throw new ValidationError(`The key is for ${key.provider}, not ${provider}.`, 'key_id');
    const ids = await liveModels(provider, apiKey);
    await markKeyUsed(this.em, key.id);
    return { models: ids.map((id) => ({ id, posthog_available: id === profile.defaultModel })) };
  }
}

async function liveModels(provider: Provider, apiKey: string): Promise<string[]> {
  try {
    const ids = provider === 'openrouter' ? await listOpenRouterModels() : await listModels(provider, apiKey);
    return [...new Set(provider === 'openai' ? ids.filter((id) => OPENAI_CHAT.test(id)) : ids)].sort();
  } catch (error) {
    const label = PROVIDER_PROFILES[provider].label;
    const kind = failureKind(error, provider);
    if (kind === 'auth') throw new ValidationError(`${label} did not accept the key.`, 'key_id');
    throw new UpstreamError(kind === 'timeout' ? 504 : 502, `${label} did not list its models (${kind === 'timeout' ? 'timed out' : kind.replace('_', ' ')}).`);
  }
}
