import { createAnthropic } from '@ai-sdk/anthropic';
import { createGoogleGenerativeAI } from '@ai-sdk/google';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenRouter } from '@openrouter/ai-sdk-provider';
import { APICallError, type LanguageModel } from 'ai';
import { config } from '../../shared/config.js';
import { PROVIDER_PROFILES, type Provider } from './provider.catalog.js';

/** How long a model call may take (LLM_TIMEOUT_SECONDS). */
export function modelTimeoutMs(): number {
  return config().LLM_TIMEOUT_SECONDS * 1000;
}

/** How long a key check or a model list may take before the provider counts as unreachable. */
export function checkTimeoutMs(): number {
  return Math.min(10_000, modelTimeoutMs());
}

/** A chat model of a provider, through the AI SDK, at the provider's (configurable) address. */
export function languageModel(provider: Provider, apiKey: string, modelId: string): LanguageModel {
  const baseURL = PROVIDER_PROFILES[provider].baseUrl();
  switch (provider) {
    case 'openai':
      // Chat Completions: the API every OpenAI-compatible server speaks.
      return createOpenAI({ apiKey, baseURL }).chat(modelId);
    case 'anthropic':
      return createAnthropic({ apiKey, baseURL })(modelId);
    case 'gemini':
      return createGoogleGenerativeAI({ apiKey, baseURL })(modelId);
    case 'openrouter':
      return createOpenRouter({ apiKey, baseURL }).chat(modelId);
  }
}

/**
 * The model ids the key can use, from the provider's own list endpoint (the AI SDK has no list
 * call; failures are thrown as its APICallError so that one classifier reads every failure).
 */
export async function listModels(provider: Provider, apiKey: string, signal = AbortSignal.timeout(checkTimeoutMs())): Promise<string[]> {
  const base = PROVIDER_PROFILES[provider].baseUrl().replace(/\/+$/, '');
  const request = listRequest(provider, base, apiKey);
  let response: Response;
  try {
    // No redirects: a key sent in x-api-key or x-goog-api-key would follow one to another origin.
    response = await fetch(request.url, { headers: request.headers, signal, redirect: 'error' });
  } catch (error) {
    throw new APICallError({ message: `Could not reach ${request.url}`, url: request.url, requestBodyValues: {}, cause: error, isRetryable: true });
  }
  const body = await response.text();
  if (!response.ok) {
    throw new APICallError({ message: `HTTP ${response.status}`, url: request.url, requestBodyValues: {}, statusCode: response.status, responseBody: body.slice(0, 2000) });
  }
  return request.ids(parseJson(body, request.url), request.url);
}

interface ListRequest {
  url: string;
  headers: Record<string, string>;
  ids(body: unknown, url: string): string[];
}

function listRequest(provider: Provider, base: string, apiKey: string): ListRequest {
  const dataIds = (body: unknown, url: string) => stringsOf(arrayOf(body, 'data', url), 'id');
  switch (provider) {
    case 'openai':
      return { url: `${base}/models`, headers: { authorization: `Bearer ${apiKey}` }, ids: dataIds };
    case 'anthropic':
      return { url: `${base}/models?limit=1000`, headers: { 'x-api-key': apiKey, 'anthropic-version': '2023-06-01' }, ids: dataIds };
    case 'gemini':
      return {
        url: `${base}/models?pageSize=1000`,
        headers: { 'x-goog-api-key': apiKey },
        ids: (body, url) => stringsOf(arrayOf(body, 'models', url), 'name').map((name) => name.replace(/^models\//, '')),
      };
    case 'openrouter':
      // The model list is public; the key endpoint is what proves a key.
      return { url: `${base}/key`, headers: { authorization: `Bearer ${apiKey}` }, ids: (body, url) => (objectOf(body, 'data', url), []) };
  }
}

/** OpenRouter's model list (public, so it needs no key). */
export async function listOpenRouterModels(signal = AbortSignal.timeout(checkTimeoutMs())): Promise<string[]> {
  const url = `${PROVIDER_PROFILES.openrouter.baseUrl().replace(/\/+$/, '')}/models`;
  let response: Response;
  try {
    response = await fetch(url, { signal, redirect: 'error' });
  } catch (error) {
    throw new APICallError({ message: `Could not reach ${url}`, url, requestBodyValues: {}, cause: error, isRetryable: true });
  }
  const body = await response.text();
  if (!response.ok) throw new APICallError({ message: `HTTP ${response.status}`, url, requestBodyValues: {}, statusCode: response.status, responseBody: body.slice(0, 2000) });
  return stringsOf(arrayOf(parseJson(body, url), 'data', url), 'id');
}

function parseJson(body: string, url: string): unknown {
  try {
    return JSON.parse(body);
  } catch (error) {
    throw new APICallError({ message: 'The provider answered with something other than JSON.', url, requestBodyValues: {}, statusCode: 200, cause: error, responseBody: body.slice(0, 2000) });
  }
}

/** The array under `field` of an answer; an answer without one is not what the provider's API gives, so a failure. */
function arrayOf(body: unknown, field: string, url: string): unknown[] {
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[field] : undefined;
  if (!Array.isArray(value)) throw unexpected(url);
  return value;
}

function objectOf(body: unknown, field: string, url: string): Record<string, unknown> {
  const value = body && typeof body === 'object' ? (body as Record<string, unknown>)[field] : undefined;
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw unexpected(url);
  return value as Record<string, unknown>;
}

/** The string `field` of each object in a list (others are left out). */
function stringsOf(items: unknown[], field: string): string[] {
  return items.flatMap((item) => {
    const value = item && typeof item === 'object' ? (item as Record<string, unknown>)[field] : undefined;
    return typeof value === 'string' && value ? [value] : [];
  });
}

function unexpected(url: string): APICallError {
  return new APICallError({ message: 'The provider answered in an unexpected shape.', url, requestBodyValues: {}, statusCode: 200 });
}
