import { APICallError } from 'ai';
import { describe, expect, it } from 'vitest';
import { failureKind, loggableFailure, providerMessage, verdictOf } from './provider.errors.js';

const callError = (statusCode: number | undefined, responseBody = '', cause?: unknown) =>
  new APICallError({ message: `HTTP ${statusCode}`, url: 'https://api.example/v1/chat/completions', requestBodyValues: { messages: [{ content: 'L1: the customer trace' }] }, statusCode, responseBody, cause });

describe('provider failures', () => {
  it.each([
    [401, 'openai', 'auth'],
    [403, 'anthropic', 'auth'],
    [429, 'openai', 'rate_limit'],
    [500, 'openai', 'other'],
    [404, 'openai', 'rejected'],
    [400, 'openai', 'rejected'],
    [400, 'gemini', 'rejected'],
  ] as const)('classifies %i from %s as %s', (status, provider, kind) => {
    expect(failureKind(callError(status), provider)).toBe(kind);
  });

  it("reads Gemini's 400 for a bad key as an authentication failure", () => {
    expect(failureKind(callError(400, '{"error":{"message":"API key not valid. Please pass a valid API key."}}'), 'gemini')).toBe('auth');
  });

  it('tells timeouts from other network failures', () => {
    const timeout = Object.assign(new Error('timed out'), { name: 'TimeoutError' });
    expect(failureKind(callError(undefined, '', timeout), 'openai')).toBe('timeout');
    expect(failureKind(callError(undefined, '', new TypeError('fetch failed')), 'openai')).toBe('network');
    expect(verdictOf(callError(undefined, '', new TypeError('fetch failed')), 'anthropic')).toEqual({ state: 'error', error_message: 'Could not connect to Anthropic' });
  });

  it("logs status, address and message only: never the request body (the customer's trace)", () => {
    const logged = JSON.stringify(loggableFailure(callError(500, '{"echo":"sk-secret"}')));
    expect(logged).not.toContain('customer trace');
    expect(logged).not.toContain('sk-secret');
    expect(JSON.parse(logged)).toEqual({ status: 500, url: 'https://api.example/v1/chat/completions', message: 'HTTP 500' });
  });

  it("passes on the provider's own message, and nothing for bodies that are not its JSON", () => {
    expect(providerMessage(callError(404, '{"error":{"message":"no such model"}}'))).toBe('no such model');
    expect(providerMessage(callError(404, '<html>'))).toBeNull();
  });
});
