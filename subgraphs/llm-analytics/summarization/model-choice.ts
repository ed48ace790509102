import type { EntityManager } from '@mikro-orm/postgresql';
import { ValidationError } from '../../shared/errors.js';
import { activeKey, activeProviders } from '../provider-keys/active-keys.query.js';
import { PROVIDER_PROFILES, PROVIDERS, providerOfModel, type Provider } from '../providers/provider.catalog.js';

/** The model a summary runs on, and the key it runs with (`key_id` when it is the environment's). */
export interface ModelChoice {
  provider: Provider;
  model: string;
  apiKey: string;
  key_id: string | null;
}

/** Which model, and whose key would run it, decided without opening any key. */
interface ModelPick {
  provider: Provider;
  model: string;
  source: 'environment' | 'server';
}

/**
 * A requested model runs on the environment's active key for its provider, else on the server's
 * key for it. Without a request: the first provider (openai, anthropic, gemini, openrouter) with
 * an active key, else with a server key, on its default model. Nothing configured is a 400.
 */
export async function chooseModel(em: EntityManager, environmentId: number, requested: string | null | undefined): Promise<ModelChoice> {
  const pick = await pickModel(em, environmentId, requested);
  const active = pick?.source === 'environment' ? await activeKey(em, environmentId, pick.provider) : null;
  if (pick && active) return { provider: pick.provider, model: pick.model, apiKey: active.apiKey, key_id: active.id };
  const serverKey = pick && PROVIDER_PROFILES[pick.provider].serverKey();
  if (pick && serverKey) return { provider: pick.provider, model: pick.model, apiKey: serverKey, key_id: null };
  const provider = requested ? requestedProvider(requested) : undefined;
  throw noModel(
    provider
      ? `no active ${PROVIDER_PROFILES[provider].label} key in this environment and no server-level one`
      : 'no active provider key in this environment and no server-level key',
  );
}

/** The model a summary would run on, by the same rule as chooseModel but without opening any key; null when none is configured. */
export async function modelName(em: EntityManager, environmentId: number, requested: string | null | undefined): Promise<string | null> {
  if (requested) {
    requestedProvider(requested);
    return requested;
  }
  return (await pickModel(em, environmentId, null))?.model ?? null;
}

/** The rule of chooseModel on the environment's active providers (one query) and the server's keys. */
async function pickModel(em: EntityManager, environmentId: number, requested: string | null | undefined): Promise<ModelPick | null> {
  const active = new Set(await activeProviders(em, environmentId));
  const sourceOf = (provider: Provider): ModelPick['source'] | null =>
    active.has(provider) ? 'environment' : PROVIDER_PROFILES[provider].serverKey() ? 'server' : null;
  if (requested) {
    const provider = requestedProvider(requested);
    const source = sourceOf(provider);
    return source ? { provider, model: requested, source } : null;
  }
  const provider = PROVIDERS.find((candidate) => active.has(candidate)) ?? PROVIDERS.find((candidate) => sourceOf(candidate) === 'server');
  return provider ? { provider, model: PROVIDER_PROFILES[provider].defaultModel, source: sourceOf(provider)! } : null;
}

function noModel(why: string): ValidationError {
  return new ValidationError(`No language model is configured: ${why}. Add a provider key with set_as_active.`, null, 'no_model_configured');
}

/** A model id as a caller may name one: the provider it belongs to, or a 400 on `model`. */
function requestedProvider(model: string): Provider {
  if (model.length > 200 || !/^[\w.:/@-]+$/.test(model)) throw new ValidationError('A model id is at most 200 letters, digits and . _ : / @ -.', 'model');
  const provider = providerOfModel(model);
  if (!provider) {
    throw new ValidationError(`Unknown model "${model}": use an OpenAI, Anthropic or Gemini model id, or vendor/model for OpenRouter.`, 'model');
  }
  return provider;
}
