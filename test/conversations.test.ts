import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { conversationsPath, idleConversation, streamConversation } from './kit/conversations.js';
import { startFakeLlm, type FakeLlm } from './kit/fake-llm.js';
import { api, gql } from './kit/http.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
let llm: FakeLlm;

beforeAll(async () => {
  llm = await startFakeLlm();
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

describe('POST conversations', () => {
  it('creates a conversation with the client id, answers 201 with the echo, and the assistant answers in the background', async () => {
    const owner = await tenant('conv-create');
    const id = randomUUID();
    const created = await post(owner, { content: 'Hello there', conversation: id, trace_id: randomUUID() });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ content: 'Hello there', conversation: id });
    const done = await idleConversation(stack.url, owner, id);
    expect(done.messages.map((message: any) => message.type)).toEqual(['human', 'ai']);
    expect(done.messages[1].content).toBe('Answer: you said "Hello there"');
  });

  it('streams SSE frames: conversation, the human message, ack, growing answer, final message', async () => {
    const owner = await tenant('conv-sse');
    const id = randomUUID();
    const streamed = await streamConversation(stack.url, owner, { content: 'Count please [tool:count_events {}]', conversation: id });
    expect(streamed.status, streamed.text).toBe(200);
    const events = streamed.frames.map((frame) => frame.event);
    expect(events[0]).toBe('conversation');
    expect(streamed.frames[0]!.data.id).toBe(id);
    expect(events).toContain('status');
    const last = streamed.frames.filter((frame) => frame.event === 'message').at(-1)!;
    expect(last.data).toMatchObject({ type: 'ai', content: 'Answer: count_events={"count":0}' });
    const done = await idleConversation(stack.url, owner, id);
    expect(done.messages.map((message: any) => message.type)).toEqual(['human', 'ai', 'tool', 'ai']);
  });

  it('answers GraphQL the same', async () => {
    const owner = await tenant('conv-gql');
    const result = await gql(stack.graphqlUrl, `mutation($p: Int!) { create_conversation(project_id: $p, content: "hi") { conversation run_id status } }`, { p: owner.environment_id }, owner.personal_api_key);
    expect(result.errors).toBeUndefined();
    expect(result.data.create_conversation.status).toBe('in_progress');
  });
});
