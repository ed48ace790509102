import { describe, expect, it } from 'vitest';
import { grants, isKnownScope } from './scopes.js';

describe('grants', () => {
  it.each([
    [['*'], 'project:write', true],
    [['project:write'], 'project:read', true],
    [['project:read'], 'project:write', false],
    [['project:read'], 'customer_profile_config:read', false],
    [['*'], 'INTERNAL', false],
    [['INTERNAL'], 'INTERNAL', true],
    [['project:write'], '*', false],
    [['*'], '*', true],
  ] as const)('%j grants %s: %s', (granted, required, expected) => {
    expect(grants(granted, required)).toBe(expected);
  });
});

describe('isKnownScope', () => {
  it('knows the documented scopes, PostHog\'s query, person and group, and *, nothing else', () => {
    for (const scope of ['*', 'llm_provider_key:read', 'llm_analytics:write', 'batch_export:write', 'conversation:read', 'customer_profile_config:write', 'endpoint:read', 'project:write', 'query:read', 'person:read', 'group:read']) {
      expect(isKnownScope(scope), scope).toBe(true);
    }
    for (const scope of ['INTERNAL', 'project:delete', 'project', 'nothing:read', '']) expect(isKnownScope(scope), scope).toBe(false);
  });
});
