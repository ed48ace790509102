import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { anEvent, eventCount, postBatch } from './kit/ingest.js';
import { api, gql } from './kit/http.js';
import { createKey, seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';
import { wsClient } from './kit/ws.js';

let stack: Stack;
let owner: Tenant;

const THROTTLED = { type: 'throttled_error', code: 'throttled', attr: null };

beforeAll(async () => {
  // Limits on Redis, as a deployment of several processes has them.
  stack = await startStack({
    databaseUrl: inject('databaseUrl'),
    redisUrl: inject('redisUrl'),
    env: { RATE_LIMIT_PERSONAL_KEY_PER_MINUTE: '5', RATE_LIMIT_PERSONAL_KEY_PER_HOUR: '100', RATE_LIMIT_PROJECT_TOKEN_PER_MINUTE: '3' },
  });
  owner = await seedTenant(inject('databaseUrl'), 'throttled');
});
afterAll(() => stack?.stop());

describe('rate limits', () => {
  it("refuse a personal API key past its rate with 429, Retry-After and the contract's body, over REST and GraphQL alike", async () => {
    const key = await createKey(stack.url, owner.personal_api_key, ['customer_profile_config:read']);
    const path = `/api/environments/${owner.environment_id}/customer_profile_configs/`;
    for (let request = 0; request < 5; request++) expect((await api(stack.url, 'GET', path, { key })).status).toBe(200);
    const refused = await api(stack.url, 'GET', path, { key });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject(THROTTLED);
    expect(refused.body.detail).toMatch(/^Request was throttled\. Expected available in \d+ seconds\.$/);
    const wait = Number(refused.headers.get('retry-after'));
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);

    const overGraphql = await fetch(stack.graphqlUrl, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: JSON.stringify({ query: '{ __typename }' }) });
    expect(overGraphql.status).toBe(429);
    expect(overGraphql.headers.get('retry-after')).toBeTruthy();
    expect(((await overGraphql.json()) as { errors: { extensions: Record<string, unknown> }[] }).errors[0]!.extensions).toMatchObject({ code: 'throttled', status: 429 });

    // Each key has a rate of its own; a request without a key is answered 401, not counted.
    const other = await createKey(stack.url, owner.personal_api_key, ['customer_profile_config:read']);
    expect((await api(stack.url, 'GET', path, { key: other })).status).toBe(200);
    expect((await api(stack.url, 'GET', path)).status).toBe(401);
    const { errors } = await gql(stack.graphqlUrl, '{ __typename }', {}, other);
    expect(errors).toBeUndefined();
  });

  it('count every operation sent over graphql-ws, and refuse those past the rate with the same error', async () => {
    const key = await createKey(stack.url, owner.personal_api_key, ['customer_profile_config:read']);
    const client = wsClient(stack.wsUrl, key);
    const ask = () => new Promise<{ data?: unknown; errors?: readonly { extensions?: Record<string, unknown> }[] }>((resolve) => {
      let answer: { data?: unknown; errors?: readonly { extensions?: Record<string, unknown> }[] } = {};
      client.subscribe({ query: '{ __typename }' }, { next: (value) => (answer = value as typeof answer), error: (errors) => resolve({ errors: errors as never }), complete: () => resolve(answer) });
    });
    for (let request = 0; request < 5; request++) expect(await ask()).toEqual({ data: { __typename: 'Query' } });
    const refused = await ask();
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'throttled', type: 'throttled_error', status: 429 });
    // The operations over the socket counted: HTTP with the same key is refused too.
    expect((await api(stack.url, 'GET', `/api/environments/${owner.environment_id}/customer_profile_configs/`, { key })).status).toBe(429);
    await client.dispose();
  });

  it('count a key sent in the query string or the body as the same key', async () => {
    const key = await createKey(stack.url, owner.personal_api_key, ['customer_profile_config:read', 'project:read']);
    const path = `/api/environments/${owner.environment_id}/customer_profile_configs/`;
    for (let request = 0; request < 4; request++) expect((await api(stack.url, 'GET', `${path}?personal_api_key=${key}`)).status).toBe(200);
    expect((await api(stack.url, 'GET', path, { key })).status).toBe(200);
    const refused = await api(stack.url, 'GET', `${path}?personal_api_key=${key}`);
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject(THROTTLED);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const project = `/api/organizations/${owner.organization_id}/projects/${owner.project_id}/`;
    expect((await api(stack.url, 'PATCH', project, { body: { personal_api_key: key, name: 'x' } })).status).toBe(429);
  });

  it('refuse a project API key past its rate of /batch/ requests, storing nothing of the refused batch', async () => {
    const tenant = await seedTenant(inject('databaseUrl'), 'throttled-token');
    for (let batch = 0; batch < 3; batch++) expect((await postBatch(stack, { api_key: tenant.project_api_key, historical_migration: true, batch: [anEvent()] })).status).toBe(200);
    const refused = await postBatch(stack, { api_key: tenant.project_api_key, historical_migration: true, batch: [anEvent(), anEvent()] });
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject(THROTTLED);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await eventCount(inject('databaseUrl'), tenant.environment_id)).toBe(3);
    // Another project's token has its own rate.
    const another = await seedTenant(inject('databaseUrl'), 'throttled-token-2');
    expect((await postBatch(stack, { api_key: another.project_api_key, historical_migration: true, batch: [anEvent()] })).status).toBe(200);
  });
});
