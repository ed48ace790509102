import { listModels } from './provider.api.js';
import type { Provider } from './provider.catalog.js';
import { verdictOf, type KeyVerdict } from './provider.errors.js';

/**
 * Asks the provider whether a key works, by listing its models (free, and it needs a valid key):
 * PostHog's check for OpenAI, Gemini and OpenRouter, and an equivalent for Anthropic.
 */
export async function checkKey(provider: Provider, apiKey: string): Promise<KeyVerdict> {
  try {
    await listModels(provider, apiKey);
    return { state: 'ok', error_message: null };
  } catch (error) {
    return verdictOf(error, provider);
  }
}
