import { describe, expect, it } from 'vitest';
import { contractResult } from './errors.js';

/** What the gateway makes of a subgraph that did not answer (stopped, unreachable). */
const unreachable = (field: string) => ({ message: 'fetch failed', path: [field], extensions: { serviceName: 'customer-profiles' } });
const databaseAway = (field: string) => ({
  message: 'The database is unavailable; try again shortly.',
  path: [field],
  extensions: { code: 'service_unavailable', type: 'server_error', status: 503, attr: null, retry_after: 5 },
});

describe(contractResult.name, () => {
  it('answers 503 with Retry-After when no field could be answered for a dependency away', () => {
    expect(contractResult({ data: null, errors: [unreachable('customer_profile_configs')] }).refusal).toEqual({ status: 503, retryAfter: { 'retry-after': '5' } });
    expect(contractResult({ data: null, errors: [databaseAway('me')] }).refusal).toEqual({ status: 503, retryAfter: { 'retry-after': '5' } });
    // Each root field null with an error of its own: nothing was answered either.
    const both = contractResult({ data: { me: null, customer_profile_configs: null }, errors: [databaseAway('me'), unreachable('customer_profile_configs')] });
    expect(both.refusal?.status).toBe(503);
    expect(both.errors.map((error) => error.extensions?.code)).toEqual(['service_unavailable', 'service_unavailable']);
  });

  it('keeps a partial answer a 200, and a refusal its own 4xx', () => {
    expect(contractResult({ data: { me: { email: 'a@b.c' }, customer_profile_configs: null }, errors: [unreachable('customer_profile_configs')] }).refusal).toBeUndefined();
    // A field that answered null is an answer.
    expect(contractResult({ data: { project: null, customer_profile_configs: null }, errors: [unreachable('customer_profile_configs')] }).refusal).toBeUndefined();
    const refused = { message: 'Not found.', path: ['project'], extensions: { code: 'not_found', type: 'invalid_request', status: 404, attr: null } };
    expect(contractResult({ data: null, errors: [refused, databaseAway('me')] }).refusal).toEqual({ status: 404, retryAfter: {} });
  });
});
