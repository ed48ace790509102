import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sql } from './kit/db.js';
import { startFakeLlm, type FakeLlm } from './kit/fake-llm.js';
import { api } from './kit/http.js';
import { seedTenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
let llm: FakeLlm;

// No REDIS_URL: summaries are cached in PostgreSQL. A server-level OpenAI key: environments without keys of their own use it.
beforeAll(async () => {
  llm = await startFakeLlm();
  stack = await startStack({ databaseUrl: inject('databaseUrl'), env: { ...llm.env, OPENAI_API_KEY: 'sk-valid-server-level-key' } });
});
afterAll(async () => {
  await stack?.stop();
  await llm?.close();
});

describe('summaries without Redis, on the server-level key', () => {
  it('runs on the server key, caches in PostgreSQL for an hour, and answers batch_check from there', async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'sum-postgres');
    const base = `/api/environments/${owner.environment_id}/llm_analytics`;
    const body = { summarize_type: 'event', data: { event: { id: 'pg-1', event: '$ai_generation', properties: { $ai_input: 'hi', $ai_output: 'hello' } } } };
    const calls = () => llm.requests.filter((request) => request.key === 'sk-valid-server-level-key').length;
    const first = await api(stack.url, 'POST', `${base}/summarization/`, { key: owner.personal_api_key, body });
    expect(first.status, first.text).toBe(200);
    expect(first.body.metadata).toMatchObject({ provider: 'openai', model: 'gpt-4.1-mini' });
    expect(calls()).toBe(1);
    const [row] = await sql<{ value: { title: string }; expires_at: Date }>(inject('databaseUrl'), 'select value, expires_at from llm_analytics.summary_cache where key = $1', [
      `llm_summary:${owner.environment_id}:event:pg-1:minimal:gpt-4.1-mini`,
    ]);
    expect(row!.value.title).toMatch(/^Fake minimal summary/);
    const ttl = new Date(row!.expires_at).getTime() - Date.now();
    expect(ttl).toBeGreaterThan(3500_000);
    expect(ttl).toBeLessThanOrEqual(3600_000);
    expect((await api(stack.url, 'POST', `${base}/summarization/`, { key: owner.personal_api_key, body })).body).toEqual(first.body);
    expect(calls()).toBe(1);

    // An expired entry is a miss.
    await sql(inject('databaseUrl'), `update llm_analytics.summary_cache set expires_at = now() - interval '1 second' where key like $1`, [`llm_summary:${owner.environment_id}:%`]);
    await api(stack.url, 'POST', `${base}/summarization/`, { key: owner.personal_api_key, body });
    expect(calls()).toBe(2);

    const trace = { trace: { id: 'pg-trace' }, hierarchy: [] };
    await api(stack.url, 'POST', `${base}/summarization/`, { key: owner.personal_api_key, body: { summarize_type: 'trace', data: trace } });
    const checked = await api(stack.url, 'POST', `${base}/summarization/batch_check/`, { key: owner.personal_api_key, body: { trace_ids: ['pg-trace', 'other'] } });
    expect(checked.body.summaries.map((entry: { trace_id: string }) => entry.trace_id)).toEqual(['pg-trace']);
  });
});
