import type { EntityManager } from '@mikro-orm/postgresql';
import { ValidationError } from '../../shared/errors.js';
import { ProviderKeyService } from '../provider-keys/provider-key.service.js';
import { PROVIDER_PROFILES, PROVIDERS, providerOfModel, type Provider } from '../providers/provider.catalog.js';

/** The model a summary runs on, and the key it runs with (`key_id` when it is the environment's). */
export interface ModelChoice {
  provider: Provider;
  model: string;
  apiKey: string;
  key_id: string | null;
}

/**
 * A requested model runs on the environment's active key for its provider, else on the server's
 * key for it. Without a request: the first provider (openai, anthropic, gemini, openrouter) with
 * an active key, else with a server key, on its default model. Nothing configured is a 400.
 */
export async function chooseModel(em: EntityManager, environmentId: number, requested: string | null | undefined): Promise<ModelChoice> {
  const keys = new ProviderKeyService(em);
  if (requested) {
    const provider = requestedProvider(requested);
    const choice = await keyFor(keys, environmentId, provider, requested);
    if (!choice) throw noModel(`no active ${PROVIDER_PROFILES[provider].label} key in this environment and no server-level one`);
    return choice;
  }
  for (const provider of PROVIDERS) {
    const active = await keys.activeKey(environmentId, provider);
    if (active) return { provider, model: PROVIDER_PROFILES[provider].defaultModel, apiKey: active.apiKey, key_id: active.key.id };
  }
  for (const provider of PROVIDERS) {
    const serverKey = PROVIDER_PROFILES[provider].serverKey();
    if (serverKey) return { provider, model: PROVIDER_PROFILES[provider].defaultModel, apiKey: serverKey, key_id: null };
  }
  throw noModel('no active provider key in this environment and no server-level key');
}

async function keyFor(keys: ProviderKeyService, environmentId: number, provider: Provider, model: string): Promise<ModelChoice | null> {
  const active = await keys.activeKey(environmentId, provider);
  if (active) return { provider, model, apiKey: active.apiKey, key_id: active.key.id };
  const serverKey = PROVIDER_PROFILES[provider].serverKey();
  return serverKey ? { provider, model, apiKey: serverKey, key_id: null } : null;
}

function noModel(why: string): ValidationError {
  return new ValidationError(`No language model is configured for summaries: ${why}. Add a provider key with set_as_active.`, null, 'no_model_configured');
}

/** A model id as a caller may name one: the provider it belongs to, or a 400 on `model`. */
function requestedProvider(model: string): Provider {
  if (model.length > 200 || !/^[\w.:/@-]+$/.test(model)) throw new ValidationError('A model id is at most 200 letters, digits and . _ : / @ -.', 'model', 'invalid');
  const provider = providerOfModel(model);
  if (!provider) {
    throw new ValidationError(`Unknown model "${model}": use an OpenAI, Anthropic or Gemini model id, or vendor/model for OpenRouter.`, 'model', 'invalid');
  }
  return provider;
}

/** The model a summary would run on, by the same rule as chooseModel but without opening any key; null when none is configured. */
export async function modelName(em: EntityManager, environmentId: number, requested: string | null | undefined): Promise<string | null> {
  if (requested) {
    requestedProvider(requested);
    return requested;
  }
  const active = new Set(await new ProviderKeyService(em).activeProviders(environmentId));
  const provider = PROVIDERS.find((candidate) => active.has(candidate)) ?? PROVIDERS.find((candidate) => PROVIDER_PROFILES[candidate].serverKey());
  return provider ? PROVIDER_PROFILES[provider].defaultModel : null;
}
