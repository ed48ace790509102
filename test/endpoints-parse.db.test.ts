import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MAX_QUERY_BYTES, MAX_QUERY_SQL_CHARS } from '../subgraphs/endpoints/hogql/hogql.limits.js';
import { createEndpoint, endpointsPath, hogql } from './kit/endpoints.js';
import { api, gql } from './kit/http.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

/** An `… or …` chain at the size limit: PostHog's parser works on it for a long while, then runs out of stack. */
function orChain(): string {
  let query = "select count() from events where event = 'e0'";
  for (let index = 1; ; index += 1) {
    const next = ` or event = 'e${index}'`;
    if (Buffer.byteLength(query + next) > MAX_QUERY_BYTES) return query;
    query += next;
  }
}

/** A short query PostHog's parser takes far longer than its budget over: nested calls. */
const PAST_BUDGET = `select ${'lower('.repeat(60)}'x'${')'.repeat(60)}`;

/** A long flat sum: PostHog's parser nests it a level per term. */
const LONG_SUM = `select ${Array<string>(5_000).fill('1').join('+')}`;

/** A few hundred bytes whose WITH expressions, each naming the one before twice, compile to far more SQL than the bound. */
const WITH_CHAIN = `WITH 'abc' AS a0, ${Array.from({ length: 6 }, (_, index) => `substring(a${index}, length(a${index})) AS a${index + 1}`).join(', ')} SELECT ${Array<string>(140).fill('a6').join(', ')}`;

const TOO_COMPLEX = { type: 'validation_error', code: 'query_too_complex', attr: 'query', detail: 'Invalid HogQL query: the query is too complex to parse.' };
const TOO_MUCH_SQL = { ...TOO_COMPLEX, detail: `Invalid HogQL query: the query is too complex to compile (more than ${MAX_QUERY_SQL_CHARS} characters of SQL).` };

let stack: Stack;
let owner: Tenant;

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  owner = await seedTenant(inject('databaseUrl'), 'parse');
});
afterAll(() => stack?.stop());

const names = async () => ((await api(stack.url, 'GET', endpointsPath(owner), { key: owner.personal_api_key })).body.results as { name: string }[]).map((endpoint) => endpoint.name);

describe('parsing a tenant’s HogQL', () => {
  it.each([
    ['a 64 KB query', 'long_or', () => orChain()],
    ['a 5,000-term sum', 'long_sum', () => LONG_SUM],
  ])('answers /healthz while %s is parsed, then refuses it as too complex, creating nothing', async (_what, name, query) => {
    const order: string[] = [];
    const creating = api(stack.url, 'POST', endpointsPath(owner), { key: owner.personal_api_key, body: { name, query: hogql(query()) } }).then((response) => {
      order.push('created');
      return response;
    });
    // Asked once the creation is being parsed: the request body has arrived and its parse started.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const health = await fetch(`${stack.url}/healthz`);
    order.push('healthz');
    expect(health.status).toBe(200);
    const created = await creating;
    expect(order).toEqual(['healthz', 'created']);
    expect(created.status, created.text).toBe(400);
    expect(created.body).toEqual(TOO_COMPLEX);
    expect(await names()).not.toContain(name);
  });

  it('refuses WITH expressions that compile past the SQL bound over REST and GraphQL, creating nothing', async () => {
    const response = await api(stack.url, 'POST', endpointsPath(owner), { key: owner.personal_api_key, body: { name: 'with_rest', query: hogql(WITH_CHAIN) } });
    expect(response.status, response.text).toBe(400);
    expect(response.body).toEqual(TOO_MUCH_SQL);
    const mutation = 'mutation($p: Int!, $q: String!) { create_endpoint(project_id: $p, name: "with_gql", query: {kind: "HogQLQuery", query: $q}) { name } }';
    const refused = await gql(stack.graphqlUrl, mutation, { p: owner.environment_id, q: WITH_CHAIN }, owner.personal_api_key);
    expect(refused.errors?.[0]?.message).toBe(TOO_MUCH_SQL.detail);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'query_too_complex', status: 400, attr: 'query' });
    expect(await names()).not.toContain('with_rest');
    expect(await names()).not.toContain('with_gql');
  });

  it('refuses a query past the parse budget over REST, creates nothing, and parses the next query', async () => {
    const response = await api(stack.url, 'POST', endpointsPath(owner), { key: owner.personal_api_key, body: { name: 'nested_rest', query: hogql(PAST_BUDGET) } });
    expect(response.status, response.text).toBe(400);
    expect(response.body).toEqual(TOO_COMPLEX);
    expect(await names()).not.toContain('nested_rest');
    await createEndpoint(stack, owner, { name: 'after_rest', query: hogql('select 40 + 2') });
    expect(await names()).toContain('after_rest');
  });

  it('refuses a query past the parse budget over GraphQL with the same error, creating nothing', async () => {
    const mutation = 'mutation($p: Int!, $q: String!) { create_endpoint(project_id: $p, name: "nested_gql", query: {kind: "HogQLQuery", query: $q}) { name } }';
    const refused = await gql(stack.graphqlUrl, mutation, { p: owner.environment_id, q: PAST_BUDGET }, owner.personal_api_key);
    expect(refused.errors?.[0]?.message).toBe(TOO_COMPLEX.detail);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'query_too_complex', status: 400, attr: 'query' });
    expect(await names()).not.toContain('nested_gql');
    const next = await gql(stack.graphqlUrl, mutation, { p: owner.environment_id, q: 'select 1' }, owner.personal_api_key);
    expect(next.errors).toBeUndefined();
    expect(next.data.create_endpoint).toEqual({ name: 'nested_gql' });
  });

  it('refuses a query past the parse budget when a version changes, keeping the endpoint as it was', async () => {
    await createEndpoint(stack, owner, { name: 'kept', query: hogql('select 1') });
    const response = await api(stack.url, 'PATCH', endpointsPath(owner, 'kept'), { key: owner.personal_api_key, body: { query: hogql(PAST_BUDGET) } });
    expect(response.status, response.text).toBe(400);
    expect(response.body).toEqual(TOO_COMPLEX);
    const kept = await api(stack.url, 'GET', endpointsPath(owner, 'kept'), { key: owner.personal_api_key });
    expect(kept.body).toMatchObject({ current_version: 1, query: { query: 'select 1' } });
  });
});
