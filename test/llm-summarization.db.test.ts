import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SecretBox } from '../subgraphs/shared/secrets.js';
import { sql } from './kit/db.js';
import { startFakeLlm, type FakeLlm } from './kit/fake-llm.js';
import { api, gql } from './kit/http.js';
import { createKey, seedTenant, type Tenant } from './kit/seed.js';
import { startStack, TEST_SECRET_KEY, type Stack } from './kit/stack.js';

let stack: Stack;
let llm: FakeLlm;
const redisPrefix = `test-summaries-${process.pid}-${Date.now()}:`;

beforeAll(async () => {
  llm = await startFakeLlm({ slowMs: 3000 });
  // Redis configured: summaries are cached there.
  stack = await startStack({ databaseUrl: inject('databaseUrl'), redisUrl: inject('redisUrl'), redisPrefix, env: { ...llm.env, LLM_TIMEOUT_SECONDS: '1' } });
});
afterAll(async () => {
  await stack?.stop();
  await llm?.close();
});

const tenant = (label: string) => seedTenant(inject('databaseUrl'), label);
const base = (owner: Tenant) => `/api/environments/${owner.environment_id}/llm_analytics`;
const summarize = (owner: Tenant, body: unknown, key = owner.personal_api_key) => api(stack.url, 'POST', `${base(owner)}/summarization/`, { key, body });

function trace(id: string) {
  return {
    trace: { id, properties: { $ai_trace_id: id, $ai_span_name: 'checkout assistant' } },
    hierarchy: [
      {
        event: { id: `${id}-gen`, event: '$ai_generation', properties: { $ai_model: 'gpt-4o', $ai_input: [{ role: 'user', content: 'Where is my order?' }], $ai_output_choices: [{ message: { role: 'assistant', content: 'It ships tomorrow.' } }] } },
        children: [],
      },
    ],
  };
}

/** A working key of the environment, made its active one for the provider. */
async function activeKey(owner: Tenant, provider: string, apiKey: string): Promise<string> {
  const created = await api(stack.url, 'POST', `${base(owner)}/provider_keys/`, { key: owner.personal_api_key, body: { provider, name: provider, api_key: apiKey, set_as_active: true } });
  expect(created.status, created.text).toBe(201);
  return created.body.id;
}

/** A key the provider would refuse to check (so the API cannot store it), put in place directly. */
async function plantActiveKey(owner: Tenant, provider: string, apiKey: string): Promise<void> {
  const [row] = await sql<{ id: string }>(
    inject('databaseUrl'),
    `insert into llm_analytics.provider_keys (id, environment_id, provider, name, api_key_sealed, api_key_masked, state, created_at, updated_at)
     values (gen_random_uuid(), $1, $2, 'planted', $3, '****', 'ok', now(), now()) returning id`,
    [owner.environment_id, provider, new SecretBox(TEST_SECRET_KEY).seal(apiKey)],
  );
  await sql(inject('databaseUrl'), `insert into llm_analytics.active_provider_keys (environment_id, provider, key_id, updated_at) values ($1, $2, $3, now())`, [owner.environment_id, provider, row!.id]);
}

describe('summarization', () => {
  it('answers 400 when no model is configured', async () => {
    const owner = await tenant('sum-none');
    const refused = await summarize(owner, { summarize_type: 'trace', data: trace('t-none') });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'no_model_configured' });
    expect(refused.body.detail).toMatch(/No language model is configured/);
  });

  it('summarizes a trace on the active key, with line references that exist, and caches it for the same mode and model', async () => {
    const owner = await tenant('sum-trace');
    const keyId = await activeKey(owner, 'openai', 'sk-valid-summaries-1');
    const calls = () => llm.requests.filter((request) => request.path.endsWith('/chat/completions') && request.key === 'sk-valid-summaries-1').length;
    const first = await summarize(owner, { summarize_type: 'trace', data: trace('t-1') });
    expect(first.status, first.text).toBe(200);
    const lines = first.body.text_repr.split('\n').length;
    expect(first.body.text_repr).toMatch(/^L0?1: /);
    expect(first.body.metadata).toEqual({ text_repr_length: first.body.text_repr.length, model: 'gpt-4.1-mini', provider: 'openai', summarize_type: 'trace' });
    expect(first.body.summary).toContain('## Interesting Notes');
    // The fake cites the first line, a range, a range past the end and a line that does not exist.
    expect(first.body.summary).toContain('[L1]');
    expect(first.body.summary).toContain(`It ends past the last line [L${lines}].`);
    expect(first.body.summary).toContain('This line does not exist.');
    for (const [, from, to] of first.body.summary.matchAll(/\[L(\d+)(?:-(\d+))?\]/g)) {
      expect(Number(from)).toBeGreaterThanOrEqual(1);
      expect(Number(to ?? from)).toBeLessThanOrEqual(lines);
    }
    expect(calls()).toBe(1);
    const request = llm.requests.filter((entry) => entry.key === 'sk-valid-summaries-1').at(-1)!;
    expect(JSON.stringify(request.body.messages)).toContain('5 to 6 bullet points');

    const cached = await summarize(owner, { summarize_type: 'trace', data: trace('t-1') });
    expect(cached.body).toEqual(first.body);
    expect(calls()).toBe(1);
    const refreshed = await summarize(owner, { summarize_type: 'trace', data: trace('t-1'), force_refresh: true });
    expect(refreshed.status).toBe(200);
    expect(calls()).toBe(2);
    const detailed = await summarize(owner, { summarize_type: 'trace', data: trace('t-1'), mode: 'detailed' });
    expect(detailed.body.summary).toMatch(/^# Fake detailed summary/);
    expect(calls()).toBe(3);
    expect((await api(stack.url, 'GET', `${base(owner)}/provider_keys/${keyId}/`, { key: owner.personal_api_key })).body.last_used_at).not.toBeNull();

    // Cached in Redis (configured here), not in PostgreSQL.
    const redis = createClient({ url: inject('redisUrl') });
    await redis.connect();
    try {
      expect(await redis.exists(`${redisPrefix}kv:llm_summary:${owner.environment_id}:trace:t-1:minimal:gpt-4.1-mini`)).toBe(1);
    } finally {
      await redis.quit();
    }
    expect(await sql(inject('databaseUrl'), `select 1 from llm_analytics.summary_cache where key like $1`, [`llm_summary:${owner.environment_id}:%`])).toHaveLength(0);
  });

  it('summarizes an event, and runs a requested model on its provider (Anthropic, Gemini, OpenRouter)', async () => {
    const owner = await tenant('sum-event');
    const event = { event: { id: 'e-1', event: '$ai_generation', properties: { $ai_input: 'hello', $ai_output: 'hi' } } };
    const missing = await summarize(owner, { summarize_type: 'event', data: event, model: 'claude-haiku-4-5' });
    expect(missing.body).toMatchObject({ code: 'no_model_configured' });
    await activeKey(owner, 'anthropic', 'sk-ant-valid-summary');
    await activeKey(owner, 'gemini', 'AIza-valid-summary-1');
    await activeKey(owner, 'openrouter', 'sk-or-valid-summary');
    for (const [model, provider, path] of [
      ['claude-haiku-4-5', 'anthropic', '/v1/messages'],
      ['gemini-2.0-flash-lite', 'gemini', '/v1beta/models/gemini-2.0-flash-lite:generateContent'],
      ['openai/gpt-4.1-mini', 'openrouter', '/api/v1/chat/completions'],
    ]) {
      const done = await summarize(owner, { summarize_type: 'event', data: event, model });
      expect(done.status, done.text).toBe(200);
      expect(done.body.metadata).toMatchObject({ model, provider, summarize_type: 'event' });
      expect(llm.requests.some((request) => request.provider === provider && request.path === path)).toBe(true);
    }
    expect((await summarize(owner, { summarize_type: 'event', data: event, model: 'llama-3' })).body).toMatchObject({ attr: 'model' });
  });

  it('answers 502 naming the provider when the model fails, 504 when it is too slow', async () => {
    const owner = await tenant('sum-fail');
    await plantActiveKey(owner, 'openai', 'sk-servererror-planted');
    const failed = await summarize(owner, { summarize_type: 'trace', data: trace('t-fail') });
    expect(failed.status).toBe(502);
    expect(failed.body).toMatchObject({ type: 'server_error', code: 'upstream_error' });
    expect(failed.body.detail).toMatch(/^OpenAI \(gpt-4\.1-mini\) failed/);
    const slow = await tenant('sum-slow');
    await plantActiveKey(slow, 'anthropic', 'sk-ant-slow-planted');
    const timedOut = await summarize(slow, { summarize_type: 'trace', data: trace('t-slow') });
    expect(timedOut.status).toBe(504);
    expect(timedOut.body.detail).toMatch(/^Anthropic \(claude-haiku-4-5\) did not answer within 1 s/);
  });

  it("answers 400 with the provider's words when it refuses the request itself (an unknown model)", async () => {
    const owner = await tenant('sum-rejected');
    await activeKey(owner, 'openai', 'sk-valid-rejected-12');
    const refused = await summarize(owner, { summarize_type: 'trace', data: trace('t-rej'), model: 'gpt-does-not-exist' });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ attr: 'model', code: 'model_rejected' });
    expect(refused.body.detail).toBe('OpenAI did not accept the request for gpt-does-not-exist: The model `gpt-does-not-exist` does not exist or you do not have access to it.');
  });

  it('refuses ids and model names that are too long or malformed', async () => {
    const owner = await tenant('sum-long');
    await activeKey(owner, 'openai', 'sk-valid-long-ids-12');
    expect((await summarize(owner, { summarize_type: 'trace', data: trace('x'.repeat(201)) })).body).toMatchObject({ attr: 'data', code: 'max_length' });
    expect((await summarize(owner, { summarize_type: 'trace', data: trace('ok'), model: `gpt-${'x'.repeat(300)}` })).body).toMatchObject({ attr: 'model' });
    expect((await summarize(owner, { summarize_type: 'trace', data: trace('ok'), model: 'gpt 4o; drop' })).body).toMatchObject({ attr: 'model' });
  });

  it.each([
    [{ data: trace('x') }, 'summarize_type', 'This field is required.'],
    [{ summarize_type: null, data: trace('x') }, 'summarize_type', 'This field may not be null.'],
    [{ summarize_type: 'session', data: trace('x') }, 'summarize_type', '"session" is not a valid choice.'],
    [{ summarize_type: 'trace', mode: 'long', data: trace('x') }, 'mode', '"long" is not a valid choice.'],
    [{ summarize_type: 'trace' }, 'data', 'This field is required and must be an object.'],
    [{ summarize_type: 'trace', data: { trace: { id: 'x' } } }, null, "Trace summarization requires 'trace' and 'hierarchy' fields"],
    [{ summarize_type: 'trace', data: { trace: { properties: {} }, hierarchy: [] } }, null, "Trace must have either '$ai_trace_id' or 'id'"],
    [{ summarize_type: 'event', data: {} }, null, "Event summarization requires 'event' field"],
    [{ summarize_type: 'event', data: { event: { properties: {} } } }, null, "Event must have an 'id' field"],
  ])('refuses bad input %# with 400', async (body, attr, detail) => {
    const owner = await tenant('sum-bad');
    await activeKey(owner, 'openai', 'sk-valid-bad-input-1');
    const refused = await summarize(owner, body);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ type: 'validation_error', attr, detail });
  });
});

describe('summarization batch_check', () => {
  it('returns only the traces with a cached summary, with their titles', async () => {
    const owner = await tenant('sum-batch');
    await activeKey(owner, 'openai', 'sk-valid-batch-check');
    await summarize(owner, { summarize_type: 'trace', data: trace('b-1') });
    await summarize(owner, { summarize_type: 'trace', data: trace('b-3'), mode: 'detailed' });
    const checked = await api(stack.url, 'POST', `${base(owner)}/summarization/batch_check/`, { key: owner.personal_api_key, body: { trace_ids: ['b-1', 'b-2', 'b-3'] } });
    expect(checked.status).toBe(200);
    expect(checked.body).toEqual({ summaries: [{ trace_id: 'b-1', title: expect.stringMatching(/^Fake minimal summary/), cached: true }] });
    const detailed = await api(stack.url, 'POST', `${base(owner)}/summarization/batch_check/`, { key: owner.personal_api_key, body: { trace_ids: ['b-1', 'b-3'], mode: 'detailed' } });
    expect(detailed.body.summaries.map((entry: { trace_id: string }) => entry.trace_id)).toEqual(['b-3']);
    const tooMany = await api(stack.url, 'POST', `${base(owner)}/summarization/batch_check/`, { key: owner.personal_api_key, body: { trace_ids: Array.from({ length: 101 }, (_, index) => `t${index}`) } });
    expect(tooMany.body).toMatchObject({ attr: 'trace_ids', code: 'max_length' });
    // A bad element is named by its place, as DRF names nested errors.
    const check = (trace_ids: unknown) => api(stack.url, 'POST', `${base(owner)}/summarization/batch_check/`, { key: owner.personal_api_key, body: { trace_ids } });
    expect((await check(['ok', { a: 1 }])).body).toMatchObject({ attr: 'trace_ids__1', detail: 'Not a valid string.' });
    expect((await check(['ok', ''])).body).toMatchObject({ attr: 'trace_ids__1', code: 'invalid_input' });
    const graph = await gql(stack.graphqlUrl, 'mutation ($p: Int!) { llm_summarization_batch_check(project_id: $p, trace_ids: ["b-1"]) { summaries { trace_id title } } }', { p: owner.environment_id }, owner.personal_api_key);
    expect(graph.data.llm_summarization_batch_check.summaries).toHaveLength(1);
  });
});

describe('summarization isolation and scopes', () => {
  it("needs llm_analytics:write, and another organization's key gets 403", async () => {
    const [owner, stranger] = await Promise.all([tenant('sum-owner'), tenant('sum-stranger')]);
    await activeKey(owner, 'openai', 'sk-valid-isolation-1');
    await summarize(owner, { summarize_type: 'trace', data: trace('iso-1') });
    const reader = await createKey(stack.url, owner.personal_api_key, ['llm_analytics:read', 'llm_provider_key:write']);
    for (const path of ['summarization/', 'summarization/batch_check/']) {
      const denied = await api(stack.url, 'POST', `${base(owner)}/${path}`, { key: reader, body: { summarize_type: 'trace', data: trace('iso-1'), trace_ids: ['iso-1'] } });
      expect(denied.body.detail).toBe("API key missing required scope 'llm_analytics:write'");
      const foreign = await api(stack.url, 'POST', `${base(owner)}/${path}`, { key: stranger.personal_api_key, body: { summarize_type: 'trace', data: trace('iso-1'), trace_ids: ['iso-1'] } });
      expect(foreign.status).toBe(403);
    }
    // The stranger's own environment has no summary of it (and no model to have made one).
    const theirs = await api(stack.url, 'POST', `${base(stranger)}/summarization/batch_check/`, { key: stranger.personal_api_key, body: { trace_ids: ['iso-1'] } });
    expect(theirs.body).toEqual({ summaries: [] });
  });

  it("keeps one environment's ids apart, even with ':' in ids and model names", async () => {
    const owner = await tenant('sum-colon');
    await activeKey(owner, 'openrouter', 'sk-or-valid-colon-12');
    const calls = () => llm.requests.filter((request) => request.key === 'sk-or-valid-colon-12' && request.path.endsWith('/chat/completions')).length;
    // Unescaped, both would be cached under …:T:minimal:openai/gpt-4o:minimal:openai/gpt-4.1-mini.
    const one = await summarize(owner, { summarize_type: 'trace', data: trace('T'), model: 'openai/gpt-4o:minimal:openai/gpt-4.1-mini' });
    const other = await summarize(owner, { summarize_type: 'trace', data: trace('T:minimal:openai/gpt-4o'), model: 'openai/gpt-4.1-mini' });
    expect([one.status, other.status]).toEqual([200, 200]);
    expect(calls()).toBe(2);
    expect(other.body.metadata.model).toBe('openai/gpt-4.1-mini');
  });
});
