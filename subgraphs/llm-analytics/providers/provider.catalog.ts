import { config } from '../../shared/config.js';

/** The providers a key can be for (PostHog's names; `google` is accepted for `gemini`). */
export const PROVIDERS = ['openai', 'anthropic', 'gemini', 'openrouter'] as const;
export type Provider = (typeof PROVIDERS)[number];

// A Map, not an object literal: a caller's name is looked up in it, and `__proto__` must find nothing.
const ALIASES = new Map<string, Provider>([['google', 'gemini']]);

/** The canonical provider for a name a caller sent, or undefined. */
export function canonicalProvider(name: string): Provider | undefined {
  const lowered = name.trim().toLowerCase();
  return (PROVIDERS as readonly string[]).includes(lowered) ? (lowered as Provider) : ALIASES.get(lowered);
}

export interface ProviderProfile {
  /** How error messages name it. */
  label: string;
  /** Its public API address, unless the contract's `<NAME>_BASE_URL` points elsewhere. */
  baseUrl(): string;
  /** A server-level key (`<NAME>_API_KEY`), if the operator configured one. */
  serverKey(): string | undefined;
  /** The model summaries use when none is asked for. */
  defaultModel: string;
  /** What `models` lists without a key; `posthog_available` marks the first (the platform's own default). */
  curated: string[];
  /** A cheap check before calling the provider: keys of this provider look like this. */
  keyPattern?: { prefix: string; example: string };
}

export const PROVIDER_PROFILES: Record<Provider, ProviderProfile> = {
  openai: {
    label: 'OpenAI',
    baseUrl: () => config().OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
    serverKey: () => config().OPENAI_API_KEY,
    defaultModel: 'gpt-4.1-mini',
    curated: ['gpt-4.1-mini', 'gpt-4.1', 'gpt-4.1-nano', 'gpt-4o', 'gpt-4o-mini', 'gpt-5', 'gpt-5-mini', 'gpt-5-nano', 'o3', 'o3-mini', 'o4-mini'],
    keyPattern: { prefix: 'sk-', example: 'sk-…' },
  },
  anthropic: {
    label: 'Anthropic',
    baseUrl: () => config().ANTHROPIC_BASE_URL ?? 'https://api.anthropic.com/v1',
    serverKey: () => config().ANTHROPIC_API_KEY,
    defaultModel: 'claude-haiku-4-5',
    curated: ['claude-haiku-4-5', 'claude-sonnet-4-5', 'claude-opus-4-1', 'claude-3-5-haiku-latest'],
    keyPattern: { prefix: 'sk-ant-', example: 'sk-ant-…' },
  },
  gemini: {
    label: 'Gemini',
    baseUrl: () => config().GEMINI_BASE_URL ?? 'https://generativelanguage.googleapis.com/v1beta',
    serverKey: () => config().GEMINI_API_KEY,
    defaultModel: 'gemini-2.0-flash-lite',
    curated: ['gemini-2.0-flash-lite', 'gemini-2.0-flash', 'gemini-2.5-flash', 'gemini-2.5-pro'],
  },
  openrouter: {
    label: 'OpenRouter',
    baseUrl: () => config().OPENROUTER_BASE_URL ?? 'https://openrouter.ai/api/v1',
    serverKey: () => config().OPENROUTER_API_KEY,
    defaultModel: 'openai/gpt-4.1-mini',
    curated: ['openai/gpt-4.1-mini', 'openai/gpt-4.1', 'anthropic/claude-haiku-4.5', 'google/gemini-2.0-flash-lite-001'],
  },
};

/** The provider a model id belongs to: `vendor/model` ids are OpenRouter's, the rest by their family. */
export function providerOfModel(model: string): Provider | undefined {
  if (model.includes('/')) return 'openrouter';
  if (/^(gpt-|o1|o3|o4|chatgpt-)/.test(model)) return 'openai';
  if (model.startsWith('claude-')) return 'anthropic';
  if (model.startsWith('gemini-')) return 'gemini';
  return undefined;
}
