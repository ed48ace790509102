import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SecretBox } from '../subgraphs/shared/secrets.js';
import { sql } from './kit/db.js';
import { startFakeLlm, type FakeLlm } from './kit/fake-llm.js';
import { api, gql } from './kit/http.js';
import { createKey, seedTenant, type Tenant } from './kit/seed.js';
import { startStack, TEST_SECRET_KEY, type Stack } from './kit/stack.js';

let stack: Stack;
let llm: FakeLlm;

beforeAll(async () => {
  llm = await startFakeLlm({ slowMs: 3000 });
  stack = await startStack({ databaseUrl: inject('databaseUrl'), env: { ...llm.env, LLM_TIMEOUT_SECONDS: '1' } });
});
afterAll(async () => {
  await stack?.stop();
  await llm?.close();
});

const tenant = (label: string) => seedTenant(inject('databaseUrl'), label);
const keysPath = (owner: Tenant) => `/api/environments/${owner.environment_id}/llm_analytics/provider_keys/`;
const create = (owner: Tenant, body: Record<string, unknown>, key = owner.personal_api_key) => api(stack.url, 'POST', keysPath(owner), { key, body });
const RECORD_FIELDS = ['api_key_masked', 'created_at', 'created_by', 'error_message', 'id', 'last_used_at', 'name', 'provider', 'set_as_active', 'state'];

describe('provider keys', () => {
  it('checks a key with the provider, stores it sealed and shows only its masked form', async () => {
    const owner = await tenant('llm-create');
    const apiKey = 'sk-valid-0123456789abcdef';
    const created = await create(owner, { provider: 'openai', name: 'Production', api_key: apiKey });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body).sort()).toEqual(RECORD_FIELDS);
    expect(created.body).toMatchObject({ provider: 'openai', name: 'Production', state: 'ok', error_message: null, api_key_masked: 'sk-v...cdef', set_as_active: false, last_used_at: null });
    expect(created.body.created_by).toMatchObject({ uuid: owner.user_uuid, email: owner.email });
    expect(llm.requests.some((request) => request.provider === 'openai' && request.path === '/v1/models' && request.key === apiKey)).toBe(true);

    const stored = await sql<{ api_key_sealed: string; api_key_masked: string }>(inject('databaseUrl'), 'select * from llm_analytics.provider_keys where id = $1', [created.body.id]);
    expect(JSON.stringify(stored)).not.toContain(apiKey);
    expect(JSON.stringify(stored)).not.toContain('0123456789abcdef');
    expect(new SecretBox(TEST_SECRET_KEY).open(stored[0]!.api_key_sealed)).toBe(apiKey);
    expect(() => new SecretBox('another-secret-key-of-at-least-32-characters').open(stored[0]!.api_key_sealed)).toThrow();

    const listed = await api(stack.url, 'GET', keysPath(owner), { key: owner.personal_api_key });
    expect(listed.body).toMatchObject({ count: 1, next: null, previous: null });
    expect(listed.body.results[0]).toEqual(created.body);
    const fetched = await api(stack.url, 'GET', `${keysPath(owner)}${created.body.id}/`, { key: owner.personal_api_key });
    expect(fetched.body).toEqual(created.body);
    expect(JSON.stringify([created.body, listed.body, fetched.body])).not.toContain(apiKey);
  });

  it.each([
    ['a key the provider rejects', 'openai', 'sk-invalid-key-123456', 'Invalid API key'],
    ['a rate-limited key', 'openai', 'sk-ratelimited-123456', 'Rate limited, please try again later'],
    ['a provider that errs', 'anthropic', 'sk-ant-servererror-1234', 'Validation failed, please try again'],
    ['a provider that is down', 'anthropic', 'sk-ant-broken-12345678', 'Could not connect to Anthropic'],
    ['a provider that is too slow', 'gemini', 'AIza-slow-1234567890', 'Could not connect to Gemini'],
    ['a Gemini key it calls invalid', 'google', 'AIza-invalid-12345678', 'Invalid API key'],
    ['a provider answering an HTML page', 'openai', 'sk-garbage-1234567890', 'Validation failed, please try again'],
  ])('refuses %s with 400 on api_key and stores nothing', async (_case, provider, apiKey, detail) => {
    const owner = await tenant('llm-refuse');
    const refused = await create(owner, { provider, name: 'Bad', api_key: apiKey });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ type: 'validation_error', detail, attr: 'api_key' });
    expect((await api(stack.url, 'GET', keysPath(owner), { key: owner.personal_api_key })).body.count).toBe(0);
  });

  it.each([
    [{ provider: 'openai', name: 'x' }, 'api_key', 'API key is required when creating a new provider key.'],
    [{ provider: 'openai', name: 'x', api_key: 'pk-not-openai-shaped' }, 'api_key', 'Invalid OpenAI API key format: it should start with sk-'],
    [{ provider: 'anthropic', name: 'x', api_key: 'sk-valid-but-not-ant' }, 'api_key', 'Invalid Anthropic API key format: it should start with sk-ant-'],
    [{ provider: 'mistral', name: 'x', api_key: 'sk-valid-123456789' }, 'provider', 'Invalid provider. Must be one of: openai, anthropic, gemini, openrouter'],
    // Names every object inherits are not providers (nor aliases of one) either.
    [{ provider: '__proto__', name: 'x', api_key: 'sk-valid-123456789' }, 'provider', 'Invalid provider. Must be one of: openai, anthropic, gemini, openrouter'],
    [{ provider: 'toString', name: 'x', api_key: 'sk-valid-123456789' }, 'provider', 'Invalid provider. Must be one of: openai, anthropic, gemini, openrouter'],
    [{ provider: 'openai', name: '  ', api_key: 'sk-valid-123456789' }, 'name', 'This field may not be blank.'],
  ])('refuses bad input %j without calling the provider', async (body, attr, detail) => {
    const owner = await tenant('llm-input');
    const before = llm.requests.length;
    const refused = await create(owner, body);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ attr, detail });
    expect(llm.requests.length).toBe(before);
  });

  it('accepts every provider, google as gemini, and masks short keys as ****', async () => {
    const owner = await tenant('llm-providers');
    for (const [provider, apiKey, canonical] of [
      ['anthropic', 'sk-ant-valid-123456', 'anthropic'],
      ['google', 'AIza-valid-1234567', 'gemini'],
      ['openrouter', 'sk-or-valid-123456', 'openrouter'],
    ]) {
      const created = await create(owner, { provider, name: provider, api_key: apiKey });
      expect(created.status, `${provider}: ${created.text}`).toBe(201);
      expect(created.body.provider).toBe(canonical);
    }
    const short = await create(owner, { provider: 'gemini', name: 'short', api_key: 'valid12' });
    expect(short.body.api_key_masked).toBe('****');
  });

  it('keeps at most one active key per provider, and shows which', async () => {
    const owner = await tenant('llm-active');
    const first = await create(owner, { provider: 'openai', name: 'first', api_key: 'sk-valid-first-1234', set_as_active: true });
    expect(first.body.set_as_active).toBe(true);
    const second = await create(owner, { provider: 'openai', name: 'second', api_key: 'sk-valid-second-123', set_as_active: true });
    expect(second.body.set_as_active).toBe(true);
    const other = await create(owner, { provider: 'anthropic', name: 'other', api_key: 'sk-ant-valid-other1', set_as_active: true });
    const listed = await api(stack.url, 'GET', keysPath(owner), { key: owner.personal_api_key });
    const active = Object.fromEntries(listed.body.results.map((key: { name: string; set_as_active: boolean }) => [key.name, key.set_as_active]));
    expect(active).toEqual({ first: false, second: true, other: true });
    const back = await api(stack.url, 'PATCH', `${keysPath(owner)}${first.body.id}/`, { key: owner.personal_api_key, body: { set_as_active: true } });
    expect(back.body.set_as_active).toBe(true);
    expect((await api(stack.url, 'GET', `${keysPath(owner)}${second.body.id}/`, { key: owner.personal_api_key })).body.set_as_active).toBe(false);
    const off = await api(stack.url, 'PATCH', `${keysPath(owner)}${other.body.id}/`, { key: owner.personal_api_key, body: { set_as_active: false } });
    expect(off.body.set_as_active).toBe(false);
  });

  it('activates only a key whose last check passed', async () => {
    const owner = await tenant('llm-activate-bad');
    const created = await create(owner, { provider: 'openai', name: 'k', api_key: 'sk-valid-to-go-bad' });
    await sql(inject('databaseUrl'), `update llm_analytics.provider_keys set state = 'invalid' where id = $1`, [created.body.id]);
    const refused = await api(stack.url, 'PATCH', `${keysPath(owner)}${created.body.id}/`, { key: owner.personal_api_key, body: { set_as_active: true } });
    expect(refused.body).toMatchObject({ attr: 'set_as_active', code: 'key_not_ok' });
  });

  it('refuses keys that are not printable ASCII, without calling the provider', async () => {
    const owner = await tenant('llm-ascii');
    const before = llm.requests.length;
    for (const apiKey of ['sk-valid-ключ-123', 'sk-valid-\u0001-123']) {
      expect((await create(owner, { provider: 'openai', name: 'x', api_key: apiKey })).body).toMatchObject({ attr: 'api_key', code: 'invalid_input' });
      const checked = await api(stack.url, 'POST', `/api/environments/${owner.environment_id}/llm_analytics/provider_key_validations/`, { key: owner.personal_api_key, body: { api_key: apiKey } });
      expect(checked.status).toBe(400);
    }
    expect(llm.requests.length).toBe(before);
  });

  it('renames, replaces a key only after a check, refuses a change of provider, and deletes', async () => {
    const owner = await tenant('llm-patch');
    const created = await create(owner, { provider: 'openai', name: 'old', api_key: 'sk-valid-original-1' });
    const path = `${keysPath(owner)}${created.body.id}/`;
    const renamed = await api(stack.url, 'PATCH', path, { key: owner.personal_api_key, body: { name: 'new' } });
    expect(renamed.body).toMatchObject({ name: 'new', api_key_masked: 'sk-v...al-1' });
    const rejected = await api(stack.url, 'PATCH', path, { key: owner.personal_api_key, body: { api_key: 'sk-invalid-replace' } });
    expect(rejected.body).toMatchObject({ attr: 'api_key', detail: 'Invalid API key' });
    expect((await api(stack.url, 'GET', path, { key: owner.personal_api_key })).body.api_key_masked).toBe('sk-v...al-1');
    const replaced = await api(stack.url, 'PATCH', path, { key: owner.personal_api_key, body: { api_key: 'sk-valid-replaced-9' } });
    expect(replaced.body).toMatchObject({ api_key_masked: 'sk-v...ed-9', state: 'ok' });
    const moved = await api(stack.url, 'PATCH', path, { key: owner.personal_api_key, body: { provider: 'anthropic' } });
    expect(moved.body).toMatchObject({ attr: 'provider' });
    // A null is a value the name does not take, not "no change".
    const nulled = await api(stack.url, 'PATCH', path, { key: owner.personal_api_key, body: { name: null } });
    expect(nulled.status).toBe(400);
    expect(nulled.body).toMatchObject({ code: 'null', attr: 'name', detail: 'This field may not be null.' });
    expect((await api(stack.url, 'GET', path, { key: owner.personal_api_key })).body.name).toBe('new');
    const deleted = await api(stack.url, 'DELETE', path, { key: owner.personal_api_key });
    expect(deleted.status).toBe(204);
    expect((await api(stack.url, 'GET', path, { key: owner.personal_api_key })).status).toBe(404);
  });

  it('re-checks the stored key and records the verdict (200 even when it no longer works)', async () => {
    const owner = await tenant('llm-revalidate');
    const created = await create(owner, { provider: 'openai', name: 'k', api_key: 'sk-valid-revalidate' });
    // The provider now rejects it: simulate by sealing a rejected key into the row.
    await sql(inject('databaseUrl'), 'update llm_analytics.provider_keys set api_key_sealed = $1 where id = $2', [new SecretBox(TEST_SECRET_KEY).seal('sk-invalid-now'), created.body.id]);
    const checked = await api(stack.url, 'POST', `${keysPath(owner)}${created.body.id}/validate/`, { key: owner.personal_api_key, body: { name: 'ignored' } });
    expect(checked.status).toBe(200);
    expect(checked.body).toMatchObject({ state: 'invalid', error_message: 'Invalid API key', name: 'k' });
    const graph = await gql(stack.graphqlUrl, 'mutation ($p: Int!, $id: ID!) { validate_llm_provider_key(project_id: $p, id: $id) { state } }', { p: owner.environment_id, id: created.body.id }, owner.personal_api_key);
    expect(graph.data.validate_llm_provider_key.state).toBe('invalid');
  });
});

describe('keys sealed under another SECRET_KEY', () => {
  it('stay listed but cannot be used: a check records why, a model list answers 400', async () => {
    const owner = await tenant('llm-rekeyed');
    const created = await create(owner, { provider: 'openai', name: 'old server', api_key: 'sk-valid-rekeyed-12' });
    const foreign = new SecretBox('another-secret-key-of-at-least-32-characters').seal('sk-valid-rekeyed-12');
    await sql(inject('databaseUrl'), 'update llm_analytics.provider_keys set api_key_sealed = $1 where id = $2', [foreign, created.body.id]);
    const listed = await api(stack.url, 'GET', keysPath(owner), { key: owner.personal_api_key });
    expect(listed.body.results[0]).toMatchObject({ id: created.body.id, api_key_masked: 'sk-v...d-12' });
    const checked = await api(stack.url, 'POST', `${keysPath(owner)}${created.body.id}/validate/`, { key: owner.personal_api_key });
    expect(checked.status).toBe(200);
    expect(checked.body).toMatchObject({ state: 'error', error_message: "The stored key cannot be decrypted with this server's SECRET_KEY; enter the key again." });
    const models = await api(stack.url, 'GET', `/api/environments/${owner.environment_id}/llm_analytics/models/?provider=openai&key_id=${created.body.id}`, { key: owner.personal_api_key });
    expect(models.status).toBe(400);
    expect(models.body).toMatchObject({ code: 'key_unreadable', attr: 'api_key' });
  });
});

describe('provider_key_validations and models', () => {
  it('checks a key without storing it', async () => {
    const owner = await tenant('llm-check');
    const path = `/api/environments/${owner.environment_id}/llm_analytics/provider_key_validations/`;
    const ok = await api(stack.url, 'POST', path, { key: owner.personal_api_key, body: { api_key: 'sk-valid-check-123' } });
    expect(ok.status).toBe(201);
    expect(ok.body).toEqual({ state: 'ok', error_message: null });
    const invalid = await api(stack.url, 'POST', path, { key: owner.personal_api_key, body: { api_key: 'sk-ant-invalid-12345', provider: 'anthropic' } });
    expect(invalid.body).toEqual({ state: 'invalid', error_message: 'Invalid API key' });
    const limited = await api(stack.url, 'POST', path, { key: owner.personal_api_key, body: { api_key: 'sk-or-ratelimited', provider: 'openrouter' } });
    expect(limited.body).toEqual({ state: 'error', error_message: 'Rate limited, please try again later' });
    expect((await api(stack.url, 'POST', path, { key: owner.personal_api_key, body: {} })).body).toMatchObject({ attr: 'api_key', detail: 'API key is required.' });
    expect((await api(stack.url, 'GET', keysPath(owner), { key: owner.personal_api_key })).body.count).toBe(0);
  });

  it('lists the curated models without a key and the live chat models with one', async () => {
    const owner = await tenant('llm-models');
    const models = (query: string) => api(stack.url, 'GET', `/api/environments/${owner.environment_id}/llm_analytics/models/${query}`, { key: owner.personal_api_key });
    const curated = await models('?provider=openai');
    expect(curated.status).toBe(200);
    expect(curated.body.models).toContainEqual({ id: 'gpt-4.1-mini', posthog_available: true });
    expect(curated.body.models).toContainEqual({ id: 'gpt-4o', posthog_available: false });
    const key = await create(owner, { provider: 'openai', name: 'k', api_key: 'sk-valid-models-12' });
    const live = await models(`?provider=openai&key_id=${key.body.id}`);
    expect(live.body.models.map((model: { id: string }) => model.id)).toEqual(['gpt-4.1', 'gpt-4.1-mini', 'gpt-4o', 'o3-mini']);
    expect((await api(stack.url, 'GET', `${keysPath(owner)}${key.body.id}/`, { key: owner.personal_api_key })).body.last_used_at).not.toBeNull();
    expect((await models('')).body).toMatchObject({ attr: 'provider', detail: 'provider query param is required' });
    expect((await models('?provider=nope')).status).toBe(400);
    // The REST fuzz test's counterexample: a name every object inherits answered 500.
    for (const inherited of ['__proto__', 'constructor', 'hasOwnProperty']) {
      expect((await models(`?provider=${inherited}`)).body).toMatchObject({ type: 'validation_error', code: 'invalid_choice', attr: 'provider' });
    }
    expect((await models(`?provider=anthropic&key_id=${key.body.id}`)).body).toMatchObject({ attr: 'key_id' });
    expect((await models('?provider=openai&key_id=00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });
});

describe('provider key isolation and scopes', () => {
  it("never shows or touches another organization's keys", async () => {
    const [owner, stranger] = await Promise.all([tenant('llm-owner'), tenant('llm-stranger')]);
    const created = await create(owner, { provider: 'openai', name: 'mine', api_key: 'sk-valid-isolated-1' });
    const path = `${keysPath(owner)}${created.body.id}/`;
    for (const [method, target, body] of [
      ['GET', keysPath(owner)],
      ['POST', keysPath(owner), { provider: 'openai', name: 'x', api_key: 'sk-valid-intruder-1' }],
      ['GET', path],
      ['PATCH', path, { name: 'stolen' }],
      ['DELETE', path],
      ['POST', `${path}validate/`],
      ['GET', `/api/environments/${owner.environment_id}/llm_analytics/models/?provider=openai&key_id=${created.body.id}`],
      ['POST', `/api/environments/${owner.environment_id}/llm_analytics/provider_key_validations/`, { api_key: 'sk-valid-1234567' }],
    ] as const) {
      const response = await api(stack.url, method, target, { key: stranger.personal_api_key, body });
      expect(response.status, `${method} ${target}`).toBe(403);
    }
    // Through the stranger's own environment the key does not exist.
    expect((await api(stack.url, 'GET', `${keysPath(stranger)}${created.body.id}/`, { key: stranger.personal_api_key })).status).toBe(404);
    expect((await api(stack.url, 'GET', path, { key: owner.personal_api_key })).body.name).toBe('mine');
  });

  it('needs llm_provider_key:read to read and :write to change or check', async () => {
    const owner = await tenant('llm-scopes');
    const [reader, unrelated] = await Promise.all([
      createKey(stack.url, owner.personal_api_key, ['llm_provider_key:read']),
      createKey(stack.url, owner.personal_api_key, ['llm_analytics:write', 'project:write']),
    ]);
    const missing = (scope: string) => `API key missing required scope '${scope}'`;
    expect((await api(stack.url, 'GET', keysPath(owner), { key: reader })).status).toBe(200);
    expect((await api(stack.url, 'GET', keysPath(owner), { key: unrelated })).body.detail).toBe(missing('llm_provider_key:read'));
    expect((await create(owner, { provider: 'openai', name: 'x', api_key: 'sk-valid-1234567' }, reader)).body.detail).toBe(missing('llm_provider_key:write'));
    const created = await create(owner, { provider: 'openai', name: 'x', api_key: 'sk-valid-1234567' });
    expect((await api(stack.url, 'POST', `${keysPath(owner)}${created.body.id}/validate/`, { key: reader })).body.detail).toBe(missing('llm_provider_key:write'));
    expect((await api(stack.url, 'GET', `/api/environments/${owner.environment_id}/llm_analytics/models/?provider=openai`, { key: unrelated })).body.detail).toBe(missing('llm_provider_key:read'));
  });
});
