import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { conversationsPath, idleConversation, streamConversation } from './kit/conversations.js';
import { startFakeLlm, type FakeLlm } from './kit/fake-llm.js';
import { api, gql } from './kit/http.js';
import { applyProfiles, postBatch } from './kit/ingest.js';
import { createKey, seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
let llm: FakeLlm;

beforeAll(async () => {
  llm = await startFakeLlm();
  // Real PostgreSQL and Redis: the stream's logs and counters live in Redis.
  stack = await startStack({
    databaseUrl: inject('databaseUrl'),
    redisUrl: inject('redisUrl'),
    env: { ...llm.env, OPENAI_API_KEY: 'sk-server-conversations' },
  });
});
afterAll(async () => {
  await stack?.stop();
  await llm?.close();
});

const tenant = (label: string) => seedTenant(inject('databaseUrl'), label);
const post = (owner: Tenant, body: unknown, key = owner.personal_api_key) => api(stack.url, 'POST', conversationsPath(owner), { key, body });
const get = (owner: Tenant, rest: string, key = owner.personal_api_key) => api(stack.url, 'GET', conversationsPath(owner, rest), { key });
const chatRequests = (content: string) => llm.requests.filter((request) => request.path.endsWith('/chat/completions') && JSON.stringify(request.body).includes(content));

describe('POST conversations', () => {
  it('creates a conversation with the client id, answers 201 with the echo, and the assistant answers in the background', async () => {
    const owner = await tenant('conv-create');
    const id = randomUUID();
    const trace = randomUUID();
    const created = await post(owner, { content: 'Hello there', conversation: id, trace_id: trace, ui_context: { page: '/insights' }, agent_mode: 'sql' });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({
      content: 'Hello there',
      conversation: id,
      contextual_tools: null,
      ui_context: { page: '/insights' },
      billing_context: null,
      trace_id: trace,
      session_id: null,
      agent_mode: 'sql',
      resume_payload: null,
    });
    const done = await idleConversation(stack.url, owner, id);
    expect(done).toMatchObject({ id, status: 'idle', type: 'assistant', is_internal: false, agent_mode: 'sql', has_unsupported_content: false, pending_approvals: [] });
    expect(done.user).toMatchObject({ email: owner.email });
    expect(done.messages.map((message: any) => message.type)).toEqual(['human', 'ai']);
    expect(done.messages[0]).toMatchObject({ type: 'human', content: 'Hello there', ui_context: { page: '/insights' }, trace_id: trace });
    expect(done.messages[1].content).toBe('Answer: you said "Hello there"');
  });

  it('makes a new id without `conversation`, works without the trailing slash, and the assistant titles it after the first answer', async () => {
    const owner = await tenant('conv-title');
    const created = await api(stack.url, 'POST', conversationsPath(owner).slice(0, -1), { key: owner.personal_api_key, body: { content: 'Which pages are most visited this week' } });
    expect(created.status).toBe(201);
    const id = created.body.conversation;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await idleConversation(stack.url, owner, id);
    await expect.poll(async () => (await get(owner, `${id}`)).body.title).toBe('Title: Which pages are most visited');
    const listed = await get(owner, '');
    expect(listed.body).toMatchObject({ count: 1, next: null, previous: null });
    expect(listed.body.results[0]).toMatchObject({ id, title: 'Title: Which pages are most visited' });
  });

  it('streams SSE frames: conversation, the human message, ack, the growing answer and the final message', async () => {
    const owner = await tenant('conv-sse');
    const id = randomUUID();
    const streamed = await streamConversation(stack.url, owner, { content: 'Say a few words [words:5]', conversation: id });
    expect(streamed.status, streamed.text).toBe(200);
    const [conversation, ack, human, ...rest] = streamed.frames;
    expect(conversation).toMatchObject({ event: 'conversation', data: { id, status: 'in_progress' } });
    expect(ack).toEqual({ event: 'status', data: { type: 'ack' } });
    expect(human).toMatchObject({ event: 'message', data: { type: 'human', content: 'Say a few words [words:5]' } });
    const answers = rest.filter((frame) => frame.event === 'message');
    const id0 = answers[0]!.data.id;
    // The answer grows under one id, as PostHog streams it, and ends with the stored message.
    expect(answers.every((frame) => frame.data.id === id0 && frame.data.type === 'ai')).toBe(true);
    const contents = answers.map((frame) => frame.data.content as string);
    expect(contents.every((content, index) => index === 0 || content.startsWith(contents[index - 1]!))).toBe(true);
    expect(contents.at(-1)).toBe('Answer: w1 w2 w3 w4 w5');
    const done = await idleConversation(stack.url, owner, id);
    expect(done.messages[1]).toEqual({ type: 'ai', id: id0, content: 'Answer: w1 w2 w3 w4 w5' });
  });

  it('answers with tools over the platform data, in several steps, and stores each step', async () => {
    const owner = await tenant('conv-tools');
    const sent = await postBatch(stack, {
      api_key: owner.project_api_key,
      historical_migration: true,
      batch: [
        { event: '$pageview', distinct_id: 'ada', timestamp: '2026-01-05T10:00:00Z', properties: { email: 'ada@example.test' } },
        { event: '$pageview', distinct_id: 'ada', timestamp: '2026-01-06T10:00:00Z' },
        { event: 'signed_up', distinct_id: 'bob', timestamp: '2026-01-06T11:00:00Z' },
      ],
    });
    expect(sent.status).toBe(200);
    await applyProfiles(stack);
    const content = 'How many? [tool:count_events {"event":"$pageview"}] [tool:event_trend {"interval":"day"}]';
    const streamed = await streamConversation(stack.url, owner, { content });
    expect(streamed.frames.filter((frame) => frame.event === 'update').map((frame) => frame.data.content)).toEqual(['Running count_events', 'Running event_trend']);
    const id = streamed.frames[0]!.data.id;
    const done = await idleConversation(stack.url, owner, id);
    expect(done.messages.map((message: any) => message.type)).toEqual(['human', 'ai', 'tool', 'ai', 'tool', 'ai']);
    expect(done.messages[1].tool_calls).toEqual([{ id: 'call_1', name: 'count_events', args: { event: '$pageview' } }]);
    expect(JSON.parse(done.messages[2].content)).toEqual({ count: 2 });
    expect(JSON.parse(done.messages[4].content)).toEqual({
      interval: 'day',
      series: [
        { bucket: '2026-01-05T00:00:00Z', count: 1 },
        { bucket: '2026-01-06T00:00:00Z', count: 2 },
      ],
    });
    expect(done.messages[5].content).toMatch(/^Answer: count_events=\{"count":2\}; event_trend=/);
    // The next message reads the history back: the model sees the earlier answer and its tool calls.
    await post(owner, { content: 'And the persons? [tool:list_persons {}] [tool:project_settings {}]', conversation: id });
    const again = await idleConversation(stack.url, owner, id);
    const persons = JSON.parse(again.messages.at(-4).content);
    expect(persons.count).toBe(2);
    expect(persons.results.map((person: any) => person.distinct_ids[0]).sort()).toEqual(['ada', 'bob']);
    expect(JSON.parse(again.messages.at(-2).content)).toMatchObject({ id: owner.environment_id, project_name: 'Default project', settings: { timezone: 'UTC' } });
    const lastRequest = chatRequests('And the persons?').at(-1)!.body;
    expect(lastRequest.messages.some((message: any) => message.role === 'tool' && message.tool_call_id === 'call_1')).toBe(true);
  });

  it('lets the tools read only what the key that asked may read', async () => {
    const owner = await tenant('conv-tool-scopes');
    const key = await createKey(stack.url, owner.personal_api_key, ['conversation:write']);
    const created = await post(owner, { content: 'Count [tool:count_events {}]' }, key);
    const done = await idleConversation(stack.url, owner, created.body.conversation);
    expect(JSON.parse(done.messages[2].content)).toEqual({ error: 'The API key that asked lacks the scope query:read, so this tool cannot read that data.' });
  });

  it("runs on the environment's active provider key when it has one", async () => {
    const owner = await tenant('conv-active-key');
    const key = await api(stack.url, 'POST', `/api/environments/${owner.environment_id}/llm_analytics/provider_keys/`, {
      key: owner.personal_api_key,
      body: { provider: 'openai', name: 'ours', api_key: 'sk-valid-conversation-key', set_as_active: true },
    });
    expect(key.status).toBe(201);
    const created = await post(owner, { content: 'On our own key please' });
    await idleConversation(stack.url, owner, created.body.conversation);
    expect(chatRequests('On our own key please').map((request) => request.key)).toContain('sk-valid-conversation-key');
    const stored = await api(stack.url, 'GET', `/api/environments/${owner.environment_id}/llm_analytics/provider_keys/${key.body.id}/`, { key: owner.personal_api_key });
    expect(stored.body.last_used_at).not.toBeNull();
  });

  it('keeps a provider failure as an ai/failure message and streams generation_error', async () => {
    const owner = await tenant('conv-fail');
    const streamed = await streamConversation(stack.url, owner, { content: 'Break please [fail]' });
    expect(streamed.frames.at(-1)).toEqual({ event: 'status', data: { type: 'generation_error' } });
    const done = await idleConversation(stack.url, owner, streamed.frames[0]!.data.id);
    expect(done.messages.at(-1)).toMatchObject({ type: 'ai/failure' });
    expect(done.messages.at(-1).content).toMatch(/^OpenAI \(gpt-4\.1-mini\) failed/);
  });

  it('answers 409 for content while a run goes on, and re-attaches without content to the same run from its start', async () => {
    const owner = await tenant('conv-attach');
    const id = randomUUID();
    await post(owner, { content: 'Slowly [slow:60] [words:12]', conversation: id });
    const busy = await post(owner, { content: 'Another one', conversation: id });
    expect(busy.status).toBe(409);
    expect(busy.body).toMatchObject({ code: 'conversation_busy', detail: 'Cannot resume streaming with a new message' });
    const attached = await streamConversation(stack.url, owner, { conversation: id });
    expect(attached.status).toBe(200);
    // The run's whole stream from its first event, though the client joined during it.
    expect(attached.frames[0]).toMatchObject({ event: 'conversation' });
    const answer = attached.frames.filter((frame) => frame.event === 'message').at(-1)!;
    expect(answer.data.content).toBe(`Answer: ${Array.from({ length: 12 }, (_, index) => `w${index + 1}`).join(' ')}`);
    const done = await idleConversation(stack.url, owner, id);
    expect(done.messages.map((message: any) => message.content)).toEqual(['Slowly [slow:60] [words:12]', answer.data.content]);
  });

  it('goes on with the run when the SSE client goes away, and lets it re-attach', async () => {
    const owner = await tenant('conv-leave');
    const id = randomUUID();
    const leaving = new AbortController();
    const response = await fetch(`${stack.url}${conversationsPath(owner)}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${owner.personal_api_key}`, 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ content: 'Keep going [slow:30] [words:30]', conversation: id }),
      signal: leaving.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    leaving.abort();
    const attached = await streamConversation(stack.url, owner, { conversation: id });
    expect(attached.frames.filter((frame) => frame.event === 'message').at(-1)!.data.content).toBe(`Answer: ${Array.from({ length: 30 }, (_, index) => `w${index + 1}`).join(' ')}`);
    expect((await idleConversation(stack.url, owner, id)).messages).toHaveLength(2);
  });

  it('answers 400 for streaming from an unknown or idle conversation', async () => {
    const owner = await tenant('conv-idle');
    const unknown = await streamConversation(stack.url, owner, { conversation: randomUUID() });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'Cannot stream from non-existent conversation', attr: null });
    const created = await post(owner, { content: 'hi' });
    await idleConversation(stack.url, owner, created.body.conversation);
    const idle = await post(owner, { conversation: created.body.conversation });
    expect(idle.status).toBe(400);
    expect(idle.body.detail).toBe('Cannot continue streaming from an idle conversation');
  });
});

describe('cancel', () => {
  it('aborts the provider call at once, keeps what was produced, and the status goes back to idle', async () => {
    const owner = await tenant('conv-cancel');
    const id = randomUUID();
    const abortedBefore = llm.aborted();
    await post(owner, { content: 'Long answer [slow:100] [words:200]', conversation: id });
    await expect.poll(async () => (await get(owner, `${id}/`)).body.status).toBe('in_progress');
    await new Promise((resolve) => setTimeout(resolve, 600));
    const canceled = await api(stack.url, 'PATCH', conversationsPath(owner, `${id}/cancel/`), { key: owner.personal_api_key });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ id, status: 'canceling' });
    const done = await idleConversation(stack.url, owner, id, owner.personal_api_key, 3000);
    await expect.poll(() => llm.aborted(), { timeout: 2000 }).toBe(abortedBefore + 1);
    const kept = done.messages.at(-1);
    expect(kept.type).toBe('ai');
    expect(kept.content).toMatch(/^Answer: w1 w2/);
    expect(kept.content).not.toMatch(/w200$/);
    // An idle conversation: cancel changes nothing.
    const again = await api(stack.url, 'PATCH', conversationsPath(owner, `${id}/cancel`), { key: owner.personal_api_key });
    expect(again.body.status).toBe('idle');
  });
});

describe('append_message', () => {
  it('stores a client message without running the model', async () => {
    const owner = await tenant('conv-append');
    const created = await post(owner, { content: 'First' });
    const id = created.body.conversation;
    await idleConversation(stack.url, owner, id);
    const before = llm.requests.length;
    const appended = await api(stack.url, 'POST', conversationsPath(owner, `${id}/append_message/`), { key: owner.personal_api_key, body: { content: 'Chart rendered' } });
    expect(appended.status).toBe(200);
    expect(appended.body).toEqual({ id: expect.any(String), content: 'Chart rendered' });
    expect(llm.requests.length).toBe(before);
    const done = await get(owner, `${id}/`);
    expect(done.body.messages.at(-1)).toEqual({ type: 'ai', id: appended.body.id, content: 'Chart rendered' });
    expect(done.body.status).toBe('idle');
  });
});

describe('queue', () => {
  it('keeps at most two messages, lets them be edited and removed, and runs them in order after the current run', async () => {
    const owner = await tenant('conv-queue');
    const id = randomUUID();
    const path = (rest = '') => conversationsPath(owner, `${id}/queue/${rest}`);
    const call = (method: string, rest: string, body?: unknown) => api(stack.url, method, path(rest), { key: owner.personal_api_key, body });
    await post(owner, { content: 'Busy for a while [slow:40] [words:25]', conversation: id });
    expect((await call('GET', '')).body).toEqual({ messages: [], max_queue_messages: 2 });
    expect((await call('POST', '', { content: null })).body).toMatchObject({ code: 'null', attr: 'content' });
    expect((await call('POST', '', {})).body).toMatchObject({ code: 'required', attr: 'content' });
    const first = await call('POST', '', { content: 'queued one', ui_context: { a: 1 } });
    expect(first.status).toBe(200);
    expect(first.body.messages).toEqual([expect.objectContaining({ content: 'queued one', ui_context: { a: 1 }, contextual_tools: null, agent_mode: null })]);
    const second = await call('POST', '', { content: 'queued two' });
    expect(second.body.messages.map((message: any) => message.content)).toEqual(['queued one', 'queued two']);
    const full = await call('POST', '', { content: 'queued three' });
    expect(full.status).toBe(409);
    expect(full.body).toMatchObject({ code: 'queue_full', detail: 'Only two messages can be queued at a time.' });
    const [one, two] = second.body.messages;
    const edited = await call('PATCH', `${two.id}/`, { content: 'queued two, edited' });
    expect(edited.body.messages.map((message: any) => message.content)).toEqual(['queued one', 'queued two, edited']);
    expect((await call('PATCH', `${randomUUID()}`, { content: 'x' })).body).toMatchObject({ code: 'not_found', detail: 'Queue message not found.' });
    const removed = await call('DELETE', `${one.id}/`);
    expect(removed.status).toBe(204);
    expect((await call('GET', '')).body.messages.map((message: any) => message.content)).toEqual(['queued two, edited']);
    await call('POST', '', { content: 'queued three' });
    // Both run after the first run, in order, each its own run.
    await expect.poll(async () => (await get(owner, `${id}/`)).body.messages.filter((message: any) => message.type === 'human').length, { timeout: 15_000 }).toBe(3);
    const done = await idleConversation(stack.url, owner, id);
    expect(done.messages.map((message: any) => message.content)).toEqual([
      'Busy for a while [slow:40] [words:25]',
      `Answer: ${Array.from({ length: 25 }, (_, index) => `w${index + 1}`).join(' ')}`,
      'queued two, edited',
      'Answer: you said "queued two, edited"',
      'queued three',
      'Answer: you said "queued three"',
    ]);
    expect((await call('GET', '')).body.messages).toEqual([]);
  });

  it('clears the queue, and runs a message queued on an idle conversation at once', async () => {
    const owner = await tenant('conv-queue-clear');
    const id = randomUUID();
    await post(owner, { content: 'Busy [slow:50] [words:40]', conversation: id });
    await api(stack.url, 'POST', conversationsPath(owner, `${id}/queue/`), { key: owner.personal_api_key, body: { content: 'never runs' } });
    const cleared = await api(stack.url, 'POST', conversationsPath(owner, `${id}/queue/clear/`), { key: owner.personal_api_key });
    expect(cleared.body).toEqual({ messages: [], max_queue_messages: 2 });
    await idleConversation(stack.url, owner, id);
    const queued = await api(stack.url, 'POST', conversationsPath(owner, `${id}/queue`), { key: owner.personal_api_key, body: { content: 'right away' } });
    expect(queued.body.messages).toEqual([]);
    const done = await idleConversation(stack.url, owner, id);
    expect(done.messages.map((message: any) => message.content).slice(-2)).toEqual(['right away', 'Answer: you said "right away"']);
    expect(done.messages.map((message: any) => message.content)).not.toContain('never runs');
  });
});

describe('GraphQL', () => {
  it('offers the same operations, with messages on the record', async () => {
    const owner = await tenant('conv-gql');
    const started = await gql(
      stack.graphqlUrl,
      'mutation($p: Int!) { create_conversation(project_id: $p, content: "hi there") { conversation run_id status } }',
      { p: owner.environment_id },
      owner.personal_api_key,
    );
    expect(started.errors).toBeUndefined();
    expect(started.data.create_conversation.status).toBe('in_progress');
    const id = started.data.create_conversation.conversation;
    await idleConversation(stack.url, owner, id);
    const read = await gql(
      stack.graphqlUrl,
      'query($p: Int!, $c: ID!) { conversation(project_id: $p, conversation: $c) { id status title user { email } messages } conversations(project_id: $p) { count results { id } } conversation_queue(project_id: $p, conversation: $c) { max_queue_messages } }',
      { p: owner.environment_id, c: id },
      owner.personal_api_key,
    );
    expect(read.errors).toBeUndefined();
    expect(read.data.conversation).toMatchObject({ id, status: 'idle', user: { email: owner.email } });
    expect(read.data.conversation.messages.map((message: any) => message.content)).toEqual(['hi there', 'Answer: you said "hi there"']);
    expect(read.data.conversations.count).toBe(1);
    expect(read.data.conversation_queue.max_queue_messages).toBe(2);
    const refused = await gql(stack.graphqlUrl, 'mutation($p: Int!) { create_conversation(project_id: $p, content: "") { conversation } }', { p: owner.environment_id }, owner.personal_api_key);
    expect(refused.errors?.[0]?.extensions).toMatchObject({ code: 'blank', attr: 'content' });
  });
});
