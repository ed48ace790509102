import { APICallError, RetryError } from 'ai';
import type { Provider } from './provider.catalog.js';
import { PROVIDER_PROFILES } from './provider.catalog.js';

export type KeyState = 'unknown' | 'ok' | 'invalid' | 'error';

/** What a key check concluded, as PostHog words it (posthog-notes §3.2). */
export interface KeyVerdict {
  state: KeyState;
  error_message: string | null;
}

export type FailureKind = 'auth' | 'rate_limit' | 'timeout' | 'network' | 'rejected' | 'other';

/**
 * Why a provider call failed: the key (401/403, or Gemini's 400 for a bad key), a rate limit, time,
 * the network, the request itself (an unknown model, a prompt too long: 400/404/413/422), or
 * anything else.
 */
export function failureKind(error: unknown, provider: Provider): FailureKind {
  const cause = error instanceof RetryError ? error.lastError : error;
  if (APICallError.isInstance(cause)) {
    const status = cause.statusCode;
    if (status === 401 || status === 403 || (provider === 'gemini' && status === 400 && /api[_ ]?key/i.test(cause.responseBody ?? ''))) return 'auth';
    if (status === 429) return 'rate_limit';
    if (status === undefined) return isTimeout(cause.cause) ? 'timeout' : 'network';
    if (status === 400 || status === 404 || status === 413 || status === 422) return 'rejected';
    return 'other';
  }
  if (isTimeout(cause)) return 'timeout';
  if (cause instanceof TypeError) return 'network';
  return 'other';
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

/** The verdict on a key from the way a call with it failed (authentication → `invalid`, the rest → `error`). */
export function verdictOf(error: unknown, provider: Provider): KeyVerdict {
  const label = PROVIDER_PROFILES[provider].label;
  switch (failureKind(error, provider)) {
    case 'auth':
      return { state: 'invalid', error_message: 'Invalid API key' };
    case 'rate_limit':
      return { state: 'error', error_message: 'Rate limited, please try again later' };
    case 'timeout':
    case 'network':
      return { state: 'error', error_message: `Could not connect to ${label}` };
    default:
      return { state: 'error', error_message: 'Validation failed, please try again' };
  }
}

/**
 * What may be logged of a failed provider call: status, address and message. Never the whole
 * error: the AI SDK's carries the request body (the customer's trace) and the response.
 */
export function loggableFailure(error: unknown): Record<string, unknown> {
  const cause = error instanceof RetryError ? error.lastError : error;
  if (APICallError.isInstance(cause)) return { status: cause.statusCode ?? null, url: cause.url, message: cause.message.slice(0, 300) };
  return { name: (cause as Error)?.name, message: String((cause as Error)?.message ?? cause).slice(0, 300) };
}

/** The provider's own words about a request it refused (its error message), for the caller. */
export function providerMessage(error: unknown): string | null {
  const cause = error instanceof RetryError ? error.lastError : error;
  if (!APICallError.isInstance(cause)) return null;
  try {
    const body = JSON.parse(cause.responseBody ?? '') as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
    return typeof message === 'string' ? message.slice(0, 300) : null;
  } catch {
    return null;
  }
}
