import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { gql } from './kit/http.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
let tenant: Tenant;

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl'), maxBodyBytes: 64 * 1024, maxLargeBodyBytes: 64 * 1024 });
  tenant = await seedTenant(inject('databaseUrl'), 'router');
});
afterAll(() => stack?.stop());

describe('router limits', () => {
  it('refuses an operation nested deeper than 12 levels before calling any subgraph', async () => {
    let selection = 'id';
    for (let i = 0; i < 7; i++) selection = `project { organization { id } id }`.replace('id }', `${i === 0 ? 'id' : selection} }`);
    const query = `query ($p: Int!) { customer_profile_configs(project_id: $p) { results { ${selection} } } }`;
    const result = await gql(stack.graphqlUrl, query, { p: tenant.environment_id }, tenant.personal_api_key);
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'query_too_deep', status: 400 });
  });

  it('refuses more than 30 aliases', async () => {
    const fields = Array.from({ length: 31 }, (_, i) => `a${i}: me { id }`).join(' ');
    const result = await gql(stack.graphqlUrl, `{ ${fields} }`, {}, tenant.personal_api_key);
    expect(result.errors?.[0]?.extensions?.code).toBe('too_many_aliases');
  });

  it('refuses an operation of more than 5000 tokens', async () => {
    const result = await gql(stack.graphqlUrl, `{ me { ${'id '.repeat(5001)} } }`, {}, tenant.personal_api_key);
    expect(result.errors?.[0]?.extensions?.code).toBe('query_too_long');
  });

  it('answers an operation refused without data with the status of its error, as REST does (not 500)', async () => {
    const invalid = await gql(stack.graphqlUrl, 'mutation { update_user(uuid: "@me", theme_mode: "neon") { id } }', {}, tenant.personal_api_key);
    expect(invalid.status).toBe(400);
    expect(invalid.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_choice', status: 400, attr: 'theme_mode' });
    expect(invalid.errors?.[0]?.extensions).not.toHaveProperty('http');
    const missing = await gql(stack.graphqlUrl, '{ user(uuid: "00000000-0000-4000-8000-000000000000") { id } }', {}, tenant.personal_api_key);
    expect(missing.status).toBe(404);
  });

  it('answers 413 for a request body over the limit, as a GraphQL error with the contract code (as its 429)', async () => {
    const response = await fetch(stack.graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ me { id } }', variables: { padding: 'x'.repeat(70 * 1024) } }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({
      errors: [{ message: 'Request body is larger than 65536 bytes.', extensions: { type: 'invalid_request', code: 'request_too_large', attr: null, status: 413 } }],
    });
  });

  it('reads a POST body as JSON, as GraphQL JSON and as a form; bad JSON is a 400 that does not echo the body', async () => {
    const post = async (contentType: string, body: Buffer | string) => {
      const response = await fetch(stack.graphqlUrl, { method: 'POST', headers: { 'content-type': contentType, authorization: `Bearer ${tenant.personal_api_key}` }, body: body as BodyInit });
      return { status: response.status, body: (await response.json()) as { data?: { me?: { email?: string } }; errors?: { message: string; extensions?: Record<string, unknown> }[] } };
    };
    const operation = JSON.stringify({ query: '{ me { email } }' });
    for (const answer of [
      await post('application/json', operation),
      await post('application/graphql+json', operation),
      await post('application/x-www-form-urlencoded', new URLSearchParams({ query: '{ me { email } }' }).toString()),
    ]) {
      expect(answer).toEqual({ status: 200, body: { data: { me: { email: tenant.email } } } });
    }
    // A byte order mark is not JSON (RFC 8259 lets a parser refuse it), as the REST layer refuses it.
    const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(operation)]);
    for (const body of ['{"query": "{ me { email } }", "secret": ', '', bom]) {
      const refused = await post('application/json', body);
      expect(refused.status).toBe(400);
      expect(refused.body.errors).toEqual([
        { message: 'POST body sent invalid JSON.', extensions: expect.objectContaining({ code: 'invalid_input', type: 'validation_error', status: 400, attr: null }) },
      ]);
      expect(JSON.stringify(refused.body)).not.toMatch(/secret|me \{ email/);
    }
  });

  it('reads a POST body of another or no content type as JSON, as REST does, and refuses what is not JSON with a 400 body (never a bare 415)', async () => {
    const post = async (headers: Record<string, string>, body: string) => {
      const response = await fetch(stack.graphqlUrl, { method: 'POST', headers: { ...headers, authorization: `Bearer ${tenant.personal_api_key}` }, body });
      return { status: response.status, body: (await response.json()) as { data?: unknown; errors?: { extensions?: Record<string, unknown> }[] } };
    };
    const operation = JSON.stringify({ query: '{ me { email } }' });
    expect(await post({ 'content-type': 'text/plain' }, operation)).toEqual({ status: 200, body: { data: { me: { email: tenant.email } } } });
    for (const contentType of ['application/xml', 'multipart/form-data; boundary=x', 'text/plain']) {
      const refused = await post({ 'content-type': contentType }, '<query>{ me { email } }</query>');
      expect(refused.status).toBe(400);
      expect(refused.body.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_input', status: 400 });
    }
  });

  it('answers a syntax error asked for as an event stream with a 400, as plain JSON answers it', async () => {
    const response = await fetch(stack.graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${tenant.personal_api_key}` },
      body: JSON.stringify({ query: '{ me { ' }),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('"code":"invalid_input"');
  });

  it('lets explorers introspect (introspection does not count towards depth)', async () => {
    const result = await gql(stack.graphqlUrl, '{ __schema { types { name fields { name type { name ofType { name ofType { name ofType { name ofType { name } } } } } } } } }', {}, tenant.personal_api_key);
    expect(result.errors).toBeUndefined();
    expect(result.data.__schema.types.some((type: { name: string }) => type.name === 'CustomerProfileConfig')).toBe(true);
  });

  it('serves GraphiQL from the package, with no CDN', async () => {
    const page = await fetch(stack.graphqlUrl, { headers: { accept: 'text/html' } }).then((response) => response.text());
    expect(page).toMatch(/graphiql/i);
    expect(page).not.toMatch(/unpkg\.com|jsdelivr|cdnjs/);
  });

  it('answers 404 with the contract body off the known paths', async () => {
    const response = await fetch(`${stack.url}/nowhere`);
    expect(response.status).toBe(404);
    expect((await response.json()).code).toBe('not_found');
  });

  it('answers /healthz with 200 while the database answers', async () => {
    const response = await fetch(`${stack.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('names what it needs in /healthz/detail: in one process, the database and the pub/sub', async () => {
    const response = await fetch(`${stack.url}/healthz/detail`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(await response.json()).toEqual({ status: 'ok', parts: { database: 'up', pubsub: 'up' } });
  });
});

describe('hostile JSON', () => {
  it('refuses variables nested beyond reason with a 400, not a crash', async () => {
    const query = 'mutation ($p: Int!, $c: JSON) { create_customer_profile_config(project_id: $p, scope: person, content: $c) { id } }';
    // Written by hand: JSON.stringify itself cannot write a value this deep.
    const body = `{"query": ${JSON.stringify(query)}, "variables": {"p": ${tenant.environment_id}, "c": ${'['.repeat(5000)}${']'.repeat(5000)}}}`;
    const response = await fetch(stack.graphqlUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tenant.personal_api_key}` },
      body,
    });
    expect(response.status).toBeLessThan(500);
    const result = (await response.json()) as { errors?: { extensions?: { code?: string } }[] };
    expect(result.errors?.[0]?.extensions?.code).toBe('variables_too_deep');
  });

  it('answers a deeply nested literal in the query without a server error', async () => {
    const literal = `${'['.repeat(2400)}${']'.repeat(2400)}`;
    const result = await gql(
      stack.graphqlUrl,
      `mutation ($p: Int!) { create_customer_profile_config(project_id: $p, scope: person, content: ${literal}) { id } }`,
      { p: tenant.environment_id },
      tenant.personal_api_key,
    );
    expect(result.status).toBeLessThan(500);
    expect(result.errors?.[0]?.extensions?.code).toBe('query_too_deep');
  });

  it('refuses a deeply nested REST body with a 400', async () => {
    const response = await fetch(`${stack.url}/api/environments/${tenant.environment_id}/customer_profile_configs/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tenant.personal_api_key}` },
      body: `{"scope": "person", "content": ${'['.repeat(5000)}${']'.repeat(5000)}}`,
    });
    expect(response.status).toBe(400);
    expect((await response.json()).type).toBe('validation_error');
  });
});

describe('graphql-ws limits', () => {
  it('closes a socket whose message is larger than the body limit', async () => {
    const { default: WebSocket } = await import('ws');
    const socket = new WebSocket(stack.wsUrl, 'graphql-transport-ws');
    await new Promise((resolve) => socket.once('open', resolve));
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    socket.send(JSON.stringify({ type: 'connection_init', payload: { padding: 'x'.repeat(70 * 1024) } }));
    expect(await closed).toBe(1009);
  });
});

describe('fragment bombs', () => {
  it('refuses fragments that spread each other twice over, at once and without a key', async () => {
    const levels = 24;
    const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on Query { ...F${i + 1} ...F${i + 1} }`).join('\n');
    const query = `query { ...F0 }\n${fragments}\nfragment F${levels} on Query { __typename }`;
    const result = await gql(stack.graphqlUrl, query);
    expect(result.errors?.[0]?.extensions?.code).toBe('query_too_complex');
  });

  it('still lets the standard introspection query through', async () => {
    const { getIntrospectionQuery } = await import('graphql');
    const result = await gql(stack.graphqlUrl, getIntrospectionQuery());
    expect(result.errors).toBeUndefined();
  });
});

describe('NUL characters', () => {
  const path = () => `/api/environments/${tenant.environment_id}/customer_profile_configs/`;

  it('are a 400 in a REST body, a GraphQL variable and a GraphQL literal', async () => {
    const rest = await fetch(`${stack.url}${path()}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${tenant.personal_api_key}` },
      body: '{"scope": "person", "content": {"a": "\\u0000"}}',
    });
    expect(rest.status).toBe(400);
    expect((await rest.json()).code).toBe('invalid_input');

    const variable = await gql(stack.graphqlUrl, 'mutation ($p: Int!, $c: JSON) { create_customer_profile_config(project_id: $p, scope: person, content: $c) { id } }', { p: tenant.environment_id, c: { ['k\u0000']: 1 } }, tenant.personal_api_key);
    expect(variable.errors?.[0]?.extensions?.code).toBe('invalid_input');

    const literal = await gql(stack.graphqlUrl, `mutation ($p: Int!) { create_customer_profile_config(project_id: $p, scope: person, content: {a: "x\\u0000"}) { id } }`, { p: tenant.environment_id }, tenant.personal_api_key);
    expect(literal.errors?.[0]?.extensions?.code).toBe('invalid_input');
  });
});

describe('GraphQL error codes', () => {
  it('carry the same code as REST for validation, coercion and unknown fields', async () => {
    const missing = await gql(stack.graphqlUrl, 'mutation ($p: Int!, $s: CustomerProfileScope!) { create_customer_profile_config(project_id: $p, scope: $s) { id } }', { p: tenant.environment_id }, tenant.personal_api_key);
    // `attr` names the field, as REST does, not the client's name for the variable.
    expect(missing.errors?.[0]?.extensions).toMatchObject({ code: 'required', type: 'validation_error', status: 400, attr: 'scope' });
    const badChoice = await gql(stack.graphqlUrl, 'mutation ($p: Int!, $s: CustomerProfileScope!) { create_customer_profile_config(project_id: $p, scope: $s) { id } }', { p: tenant.environment_id, s: 'planet' }, tenant.personal_api_key);
    expect(badChoice.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_choice', attr: 'scope' });
    const literalChoice = await gql(stack.graphqlUrl, 'mutation ($p: Int!) { create_customer_profile_config(project_id: $p, scope: planet) { id } }', { p: tenant.environment_id }, tenant.personal_api_key);
    expect(literalChoice.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_choice', type: 'validation_error', status: 400, attr: 'scope' });
    expect(literalChoice.errors?.[0]?.message).toBe('Value "planet" does not exist in "CustomerProfileScope" enum.');
    const literalBoolean = await gql(stack.graphqlUrl, 'mutation { ingest_batch(api_key: "phc_x", historical_migration: "maybe", batch: []) { status } }', {}, tenant.personal_api_key);
    expect(literalBoolean.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_input', type: 'validation_error', status: 400, attr: 'historical_migration' });
    const variableBoolean = await gql(stack.graphqlUrl, 'mutation ($h: Boolean, $k: String) { ingest_batch(api_key: $k, historical_migration: $h, batch: []) { status } }', { h: 'maybe', k: 'phc_x' }, tenant.personal_api_key);
    expect(variableBoolean.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_input', type: 'validation_error', status: 400, attr: 'historical_migration' });
    const unknownField = await gql(stack.graphqlUrl, '{ nothing_here }', {}, tenant.personal_api_key);
    expect(unknownField.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_input', type: 'validation_error', status: 400 });
  });
});
