import type { EntityManager } from '@mikro-orm/postgresql';
import type { LanguageModel } from 'ai';
import { markKeyUsed } from './provider-keys/active-keys.query.js';
import { languageModel, modelTimeoutMs } from './providers/provider.api.js';
import { PROVIDER_PROFILES, type Provider } from './providers/provider.catalog.js';
import { failureKind, loggableFailure, providerMessage, type FailureKind } from './providers/provider.errors.js';
import { chooseModel } from './summarization/model-choice.js';

/** A language model opened for an environment, with what its callers say about it. */
export interface OpenedModel {
  model: LanguageModel;
  provider: Provider;
  /** The provider's name as people write it (`OpenAI`). */
  label: string;
  model_id: string;
  /** The environment's provider key that runs it; null for the server-level key. */
  key_id: string | null;
}

/** What other subgraphs may ask of LLM analytics: plain objects in and out, and model handles. */
export const llmAnalyticsFacade = {
  /**
   * The model the environment's language-model features run on: its active provider key (first
   * of openai, anthropic, gemini, openrouter), else the server-level key; a 400
   * `no_model_configured` when there is neither. Any subgraph's EntityManager will do.
   */
  openModel: async (em: EntityManager, environmentId: number): Promise<OpenedModel> => {
    const choice = await chooseModel(em, environmentId, null);
    return {
      model: languageModel(choice.provider, choice.apiKey, choice.model),
      provider: choice.provider,
      label: PROVIDER_PROFILES[choice.provider].label,
      model_id: choice.model,
      key_id: choice.key_id,
    };
  },

  /** Records that a call used an environment's key (its `last_used_at`). */
  markKeyUsed: (em: EntityManager, keyId: string): Promise<void> => markKeyUsed(em, keyId),

  /** Why a model call failed, in the words the platform uses for every provider (never the key). */
  describeFailure: (error: unknown, provider: Provider): { kind: FailureKind; message: string | null; loggable: Record<string, unknown> } => ({
    kind: failureKind(error, provider),
    message: providerMessage(error),
    loggable: loggableFailure(error),
  }),

  /** How long one model call may take (LLM_TIMEOUT_SECONDS). */
  timeoutMs: (): number => modelTimeoutMs(),
};
