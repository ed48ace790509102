import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, gql } from './kit/http.js';
import { createKey, seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
let owner: Tenant;

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl'), maxLargeBodyBytes: 4 * 1_048_576 });
  owner = await seedTenant(inject('databaseUrl'), 'text-repr');
});
afterAll(() => stack?.stop());

const path = (tenant: Tenant) => `/api/environments/${tenant.environment_id}/llm_analytics/text_repr/`;
const render = (body: unknown, key = owner.personal_api_key, tenant = owner) => api(stack.url, 'POST', path(tenant), { key, body });
const generation = { id: 'gen-1', event: '$ai_generation', properties: { $ai_input: [{ role: 'user', content: 'Hello' }], $ai_output_choices: [{ message: { role: 'assistant', content: 'Hi there' } }] } };

describe('text_repr over REST and GraphQL', () => {
  it("renders a generation as PostHog's worked example, the same in both", async () => {
    const rendered = await render({ event_type: '$ai_generation', data: generation });
    expect(rendered.status).toBe(200);
    const separator = '-'.repeat(80);
    expect(rendered.body.text.split('\n')).toEqual([separator, '', 'INPUT:', '', '[1] USER', '', 'Hello', '', separator, '', 'OUTPUT:', '', '[1] ASSISTANT', '', 'Hi there']);
    expect(rendered.body.metadata).toEqual({ event_type: '$ai_generation', event_id: 'gen-1', trace_id: null, rendering: 'detailed', char_count: rendered.body.text.length, truncated: false });
    const graph = await gql(
      stack.graphqlUrl,
      'mutation ($p: Int!, $d: JSON) { llm_text_repr(project_id: $p, event_type: "$ai_generation", data: $d) { text metadata { char_count truncated } } }',
      { p: owner.environment_id, d: generation },
      owner.personal_api_key,
    );
    expect(graph.data.llm_text_repr.text).toBe(rendered.body.text);
  });

  it('numbers lines and renders spans, embeddings and traces', async () => {
    const numbered = await render({ event_type: '$ai_generation', data: generation, options: { include_line_numbers: true } });
    expect(numbered.body.text.split('\n')[0]).toMatch(/^L01: -{80}$/);
    const span = await render({ event_type: '$ai_span', data: { id: 's-1', event: '$ai_span', properties: { $ai_span_name: 'retrieve docs' } } });
    expect(span.body.text.split('\n').slice(0, 2)).toEqual(['RETRIEVE DOCS', '='.repeat(80)]);
    const embedding = await render({ event_type: '$ai_embedding', data: { id: 'emb-1', event: '$ai_embedding', properties: { $ai_input: 'text to embed' } } });
    expect(embedding.body.text).toContain('Embedding vector generated');
    const trace = await render({
      event_type: '$ai_trace',
      data: { trace: { id: 't-1', properties: { $ai_trace_id: 't-1', $ai_span_name: 'my-trace' } }, hierarchy: [{ event: generation, children: [] }] },
      options: { include_markers: false },
    });
    expect(trace.body.text).toContain('MY-TRACE');
    expect(trace.body.text).toContain('TRACE HIERARCHY:');
    expect(trace.body.text).toContain('└─ [+] [GEN] generation');
    expect(trace.body.metadata).toMatchObject({ event_type: '$ai_trace', trace_id: 't-1' });
  });

  it('takes a 2 MB generation through REST (a large-body path)', async () => {
    const big = { id: 'big', event: '$ai_generation', properties: { $ai_input: [{ role: 'user', content: 'x'.repeat(2_000_000) }], $ai_output: 'done' } };
    const rendered = await render({ event_type: '$ai_generation', data: big, options: { include_markers: false } });
    expect(rendered.status).toBe(200);
    expect(rendered.body.text).toContain('... (1999000 chars truncated) ...');
    expect(rendered.body.metadata.truncated).toBe(false);
  });

  it.each([
    ['an unknown event type', { event_type: '$pageview', data: generation }, 'event_type', 'invalid_choice'],
    ['a missing event type', { data: generation }, 'event_type', 'required'],
    ['missing data', { event_type: '$ai_generation' }, 'data', 'required'],
    ['a null event type', { event_type: null, data: generation }, 'event_type', 'null'],
    ['null data', { event_type: '$ai_generation', data: null }, 'data', 'null'],
    ['data that is a list', { event_type: '$ai_generation', data: [] }, 'data', 'not_a_dict'],
    ['an option of the wrong type', { event_type: '$ai_generation', data: generation, options: { max_length: 'long' } }, 'options__max_length', 'invalid_input'],
    ['a negative buffer', { event_type: '$ai_generation', data: generation, options: { truncate_buffer: -1 } }, 'options__truncate_buffer', 'min_value'],
  ])('answers 400 on the field for %s', async (_name, body, attr, code) => {
    const refused = await render(body);
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ type: 'validation_error', attr, code });
  });

  it("answers 400 with PostHog's messages for events without properties or id", async () => {
    expect((await render({ event_type: '$ai_generation', data: { id: 'x' } })).body.detail).toBe("$ai_generation events require 'properties' object in data field");
    expect((await render({ event_type: '$ai_span', data: { properties: {} } })).body.detail).toBe("$ai_span events require an 'id' field");
    expect((await render({ event_type: '$ai_trace', data: { trace: {}, hierarchy: [] } })).body.detail).toBe("Trace events require 'trace' object and 'hierarchy' array in data field");
  });
});

describe('text_repr limits, scopes and isolation', () => {
  it('answers 413 past the large-body limit, and keeps ordinary paths at the ordinary limit', async () => {
    const huge = await render({ event_type: '$ai_generation', data: { id: 'h', properties: { $ai_input: 'x'.repeat(5 * 1_048_576) } } });
    expect(huge.status).toBe(413);
    expect(huge.body.code).toBe('request_too_large');
    const ordinary = await api(stack.url, 'POST', `/api/environments/${owner.environment_id}/llm_analytics/provider_keys/`, {
      key: owner.personal_api_key,
      body: { provider: 'openai', name: 'x'.repeat(2 * 1_048_576), api_key: 'sk-x' },
    });
    expect(ordinary.status).toBe(413);
  });

  it("needs llm_analytics:write and refuses another organization's environment", async () => {
    const reader = await createKey(stack.url, owner.personal_api_key, ['llm_analytics:read']);
    expect((await render({ event_type: '$ai_generation', data: generation }, reader)).body.detail).toBe("API key missing required scope 'llm_analytics:write'");
    const stranger = await seedTenant(inject('databaseUrl'), 'text-repr-stranger');
    expect((await render({ event_type: '$ai_generation', data: generation }, stranger.personal_api_key)).status).toBe(403);
    expect((await render({ event_type: '$ai_generation', data: generation }, stranger.personal_api_key, stranger)).status).toBe(200);
  });
});
