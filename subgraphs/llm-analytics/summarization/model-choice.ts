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
    const provider = providerOfModel(requested);
    if (!provider) {
      throw new ValidationError(`Unknown model "${requested}": use an OpenAI, Anthropic or Gemini model id, or vendor/model for OpenRouter.`, 'model', 'invalid');
    }
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
