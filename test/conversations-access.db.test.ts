import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { idleConversation } from './kit/conversations.js';
import { startFakeLlm, type FakeLlm } from './kit/fake-llm.js';
import { api, gql } from './kit/http.js';
import { addMember, createKey, seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';
import { collect, wsClient } from './kit/ws.js';

let stack: Stack;
let llm: FakeLlm;

beforeAll(async () => {
  llm = await startFakeLlm();
  stack = await startStack({ databaseUrl: inject('databaseUrl'), env: { ...llm.env, OPENAI_API_KEY: 'sk-server-access' } });
});
afterAll(async () => {
  await stack?.stop();
  await llm?.close();
});

const READ = 'conversation:read';
const WRITE = 'conversation:write';
const UNKNOWN_KEY = 'phx_thisKeyDoesNotExist0000000000';
const NOT_FOUND = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };
const NO_PROJECT = { type: 'authentication_error', code: 'permission_denied', detail: "You don't have access to the project.", attr: null };
const OTHER_USERS = "Cannot access other users' conversations";
const missingScope = (scope: string) => ({ type: 'authentication_error', code: 'permission_denied', detail: `API key missing required scope '${scope}'`, attr: null });

const tenant = (label: string) => seedTenant(inject('databaseUrl'), label);
/** `/api/environments/:id/conversations[/rest]`, with or without the trailing slash. */
const url = (environment: number, rest = '', slash = true) => `/api/environments/${environment}/conversations${rest ? `/${rest}` : ''}${slash ? '/' : ''}`;

/** A conversation of `owner` whose messages hold a secret: idle and titled, or answering slowly with one message queued. */
interface Target {
  id: string;
  queueId: string;
  secret: string;
}
async function conversationOf(owner: Tenant, busy = false): Promise<Target> {
  const [id, secret] = [randomUUID(), `secret-${randomUUID()}`];
  const key = owner.personal_api_key;
  const content = busy ? `${secret} [slow:500] [words:20]` : secret;
  const started = await api(stack.url, 'POST', url(owner.environment_id), { key, body: { content, conversation: id } });
  expect(started.status, started.text).toBe(201);
  if (!busy) {
    await idleConversation(stack.url, owner, id);
    // The assistant names a new conversation after its first answer: wait for it, so that the record stays still.
    await expect.poll(async () => (await api(stack.url, 'GET', url(owner.environment_id, id), { key })).body.title).toMatch(/^Title: /);
    return { id, queueId: randomUUID(), secret };
  }
  const queued = await api(stack.url, 'POST', url(owner.environment_id, `${id}/queue`), { key, body: { content: `${secret} queued` } });
  expect(queued.status, queued.text).toBe(200);
  return { id, queueId: queued.body.messages[0].id, secret };
}

/** Everything the owner can see of a conversation: the list's count, the record, the queue. */
async function stateOf(owner: Tenant, id: string) {
  const get = (rest: string) => api(stack.url, 'GET', url(owner.environment_id, rest), { key: owner.personal_api_key }).then((response) => response.body);
  const [list, record, queue] = await Promise.all([get(''), get(id), get(`${id}/queue`)]);
  return { count: list.count, record, queue };
}

/** Ends a busy conversation's run (its queue first, so that nothing runs next). */
async function settle(owner: Tenant, id: string): Promise<void> {
  const key = owner.personal_api_key;
  await api(stack.url, 'POST', url(owner.environment_id, `${id}/queue/clear`), { key });
  await api(stack.url, 'PATCH', url(owner.environment_id, `${id}/cancel`), { key });
  await idleConversation(stack.url, owner, id);
}

interface Operation {
  method: string;
  /** Below …/conversations/: `:conversation` and `:queue_id` are filled in. */
  path: string;
  scope: typeof READ | typeof WRITE;
  status: number;
  body?: (conversation: string) => Record<string, unknown>;
  /** The same operation in GraphQL, over `$p`, `$c` and `$q` (those it declares). */
  query: string;
  /** Needs a run in progress with a message queued (else an idle conversation). */
  busy?: boolean;
  /** What another member of the organization gets on the owner's conversation. */
  colleague: 'hidden' | 400 | 403 | 404;
}

const operations: Operation[] = [
  { method: 'GET', path: '', scope: READ, status: 200, colleague: 'hidden', query: 'query($p: Int!) { conversations(project_id: $p) { count results { id } } }' },
  {
    method: 'POST', path: '', scope: WRITE, status: 201, colleague: 400, body: (conversation) => ({ content: 'Hello again', conversation }),
    query: 'mutation($p: Int!, $c: ID!) { create_conversation(project_id: $p, conversation: $c, content: "Hello again") { conversation } }',
  },
  { method: 'GET', path: ':conversation', scope: READ, status: 200, colleague: 404, query: 'query($p: Int!, $c: ID!) { conversation(project_id: $p, conversation: $c) { id messages } }' },
  {
    method: 'POST', path: ':conversation/append_message', scope: WRITE, status: 200, colleague: 404, body: () => ({ content: 'Chart rendered' }),
    query: 'mutation($p: Int!, $c: ID!) { append_conversation_message(project_id: $p, conversation: $c, content: "Chart rendered") { id } }',
  },
  { method: 'PATCH', path: ':conversation/cancel', scope: WRITE, status: 200, colleague: 404, query: 'mutation($p: Int!, $c: ID!) { cancel_conversation(project_id: $p, conversation: $c) { id status } }' },
  { method: 'GET', path: ':conversation/queue', scope: READ, status: 200, colleague: 403, query: 'query($p: Int!, $c: ID!) { conversation_queue(project_id: $p, conversation: $c) { messages { content } } }' },
  {
    method: 'POST', path: ':conversation/queue', scope: WRITE, status: 200, colleague: 403, body: () => ({ content: 'Later, please' }),
    query: 'mutation($p: Int!, $c: ID!) { enqueue_conversation_message(project_id: $p, conversation: $c, content: "Later, please") { messages { content } } }',
  },
  {
    method: 'PATCH', path: ':conversation/queue/:queue_id', scope: WRITE, status: 200, colleague: 403, busy: true, body: () => ({ content: 'Edited' }),
    query: 'mutation($p: Int!, $c: ID!, $q: ID!) { update_conversation_queue_message(project_id: $p, conversation: $c, queue_id: $q, content: "Edited") { messages { content } } }',
  },
  {
    method: 'DELETE', path: ':conversation/queue/:queue_id', scope: WRITE, status: 204, colleague: 403, busy: true,
    query: 'mutation($p: Int!, $c: ID!, $q: ID!) { delete_conversation_queue_message(project_id: $p, conversation: $c, queue_id: $q) { messages { content } } }',
  },
  { method: 'POST', path: ':conversation/queue/clear', scope: WRITE, status: 200, colleague: 403, query: 'mutation($p: Int!, $c: ID!) { clear_conversation_queue(project_id: $p, conversation: $c) { messages { content } } }' },
];
const nameOf = (operation: Operation) => `${operation.method} …/conversations/${operation.path}`.replace(/\/$/, '');
const fieldOf = (operation: Operation) => /\{\s*(\w+)/.exec(operation.query)![1]!;

/** An operation on `target` under `environment`, over REST and over GraphQL. */
const call = (operation: Operation, environment: number, target: Target, key?: string, slash = true) => {
  const path = operation.path.replace(':conversation', target.id).replace(':queue_id', target.queueId);
  return api(stack.url, operation.method, url(environment, path, slash), { key, body: operation.body?.(target.id) });
};
const callGql = (operation: Operation, environment: number, target: Target, key?: string) => {
  const variables = Object.fromEntries(Object.entries({ p: environment, c: target.id, q: target.queueId }).filter(([name]) => operation.query.includes(`$${name}:`)));
  return gql(stack.graphqlUrl, operation.query, variables, key);
};

/** A key of `owner` by the name the tables use. */
async function keyOf(owner: Tenant, name: string): Promise<string | undefined> {
  const scopes: Record<string, string[]> = { unrelated: ['project:read'], read: [READ], write: [WRITE] };
  if (name === 'star') return owner.personal_api_key;
  if (name === 'unknown') return UNKNOWN_KEY;
  return name === 'none' ? undefined : createKey(stack.url, owner.personal_api_key, scopes[name]!);
}

const FOLLOW = 'subscription($c: ID!, $r: ID) { conversation_stream(conversation: $c, run: $r) { conversation run_id kind data } }';
/** Subscribes to a conversation's stream (or one run of it) for a while: the events it got, and the first error (or how the socket closed). */
async function follow(key: string | undefined, conversation: string, run?: string) {
  const client = wsClient(stack.wsUrl, key);
  const stream = collect(client, FOLLOW, { c: conversation, r: run });
  await stream.next(1, 3000).catch(() => undefined);
  stream.dispose();
  await client.dispose();
  const failure = stream.failure as any;
  return {
    events: stream.results.flatMap((result) => (result.data?.conversation_stream ? [result.data.conversation_stream] : [])),
    error: stream.results.find((result) => result.errors)?.errors?.[0] ?? (Array.isArray(failure) ? failure[0] : undefined),
    closeCode: failure?.code as number | undefined,
  };
}

/** What a caller who may not see the conversation gets: an empty list, 404, or PostHog's "other users" refusal (400 or 403). */
function expectRefused(outcome: Operation['colleague'], response: Awaited<ReturnType<typeof api>>, result: Awaited<ReturnType<typeof gql>>): void {
  if (outcome === 'hidden') {
    expect(response.status).toBe(200);
    expect(response.body.results).toEqual([]);
    expect(result.data.conversations.results).toEqual([]);
    return;
  }
  const body = outcome === 404 ? NOT_FOUND : { type: outcome === 400 ? 'validation_error' : 'authentication_error', code: outcome === 400 ? 'invalid_input' : 'permission_denied', detail: OTHER_USERS, attr: null };
  expect(response.status).toBe(outcome);
  expect(response.body).toEqual(body);
  expect(result.errors?.[0]?.message).toBe(body.detail);
  expect(result.errors?.[0]?.extensions).toMatchObject({ code: body.code, status: outcome });
}

describe.each(operations.map((operation) => [`${nameOf(operation)} needs ${operation.scope}`, operation] as const))('scope matrix: %s', (_name, operation) => {
  const reads = operation.scope === READ;
  const allowed = reads ? ['read', 'write', 'star'] : ['write', 'star'];
  const refused = reads ? ['unrelated'] : ['unrelated', 'read'];
  const setUp = async () => {
    const owner = await tenant('conv-scopes');
    return { owner, target: await conversationOf(owner, operation.busy) };
  };

  it('REST: answers 401 without a key or with an unknown key, and changes nothing', async () => {
    const { owner, target } = await setUp();
    const before = await stateOf(owner, target.id);
    const none = await call(operation, owner.environment_id, target, undefined, false);
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ type: 'authentication_error', code: 'not_authenticated', detail: 'Authentication credentials were not provided.', attr: null });
    const unknown = await call(operation, owner.environment_id, target, UNKNOWN_KEY);
    expect(unknown.status).toBe(401);
    expect(unknown.body.code).toBe('authentication_failed');
    expect(await stateOf(owner, target.id)).toEqual(before);
  });

  it.each(refused)('REST: answers 403 naming the scope to a key with %s scopes, and changes nothing', async (name) => {
    const { owner, target } = await setUp();
    const before = await stateOf(owner, target.id);
    const response = await call(operation, owner.environment_id, target, await keyOf(owner, name));
    expect(response.status).toBe(403);
    expect(response.body).toEqual(missingScope(operation.scope));
    expect(await stateOf(owner, target.id)).toEqual(before);
  });

  it.each(allowed)('REST: succeeds for a %s key', async (name) => {
    const { owner, target } = await setUp();
    const response = await call(operation, owner.environment_id, target, await keyOf(owner, name));
    expect(response.status, response.text).toBe(operation.status);
  });

  it('REST: succeeds without the trailing slash too', async () => {
    const { owner, target } = await setUp();
    const response = await call(operation, owner.environment_id, target, owner.personal_api_key, false);
    expect(response.status, response.text).toBe(operation.status);
  });

  it('GraphQL: answers not_authenticated without a key and 401 with an unknown key', async () => {
    const { owner, target } = await setUp();
    const none = await callGql(operation, owner.environment_id, target);
    expect(none.errors?.[0]?.extensions).toMatchObject({ code: 'not_authenticated', status: 401 });
    const unknown = await callGql(operation, owner.environment_id, target, UNKNOWN_KEY);
    expect(unknown.status).toBe(401);
    expect(unknown.errors?.[0]?.extensions?.code).toBe('authentication_failed');
  });

  it.each(refused)('GraphQL: answers permission_denied naming the scope to a key with %s scopes', async (name) => {
    const { owner, target } = await setUp();
    const before = await stateOf(owner, target.id);
    const result = await callGql(operation, owner.environment_id, target, await keyOf(owner, name));
    expect(result.data?.[fieldOf(operation)] ?? null).toBeNull();
    expect(result.errors?.[0]?.message).toBe(missingScope(operation.scope).detail);
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: 'permission_denied', status: 403 });
    expect(await stateOf(owner, target.id)).toEqual(before);
  });

  it.each(allowed)('GraphQL: succeeds for a %s key', async (name) => {
    const { owner, target } = await setUp();
    const result = await callGql(operation, owner.environment_id, target, await keyOf(owner, name));
    expect(result.errors).toBeUndefined();
    expect(result.data[fieldOf(operation)]).toBeTruthy();
  });
});

describe('scope matrix: the conversation_stream subscription needs conversation:read', () => {
  it('is refused without a key, with an unknown key, and to a key with unrelated scopes', async () => {
    const owner = await tenant('conv-stream-scopes');
    const target = await conversationOf(owner, true);
    const none = await follow(undefined, target.id);
    expect(none.events).toEqual([]);
    expect(none.error?.extensions?.code).toBe('not_authenticated');
    const unknown = await follow(UNKNOWN_KEY, target.id);
    expect(unknown.events).toEqual([]);
    expect(unknown.closeCode).toBe(4401);
    const unrelated = await follow(await keyOf(owner, 'unrelated'), target.id);
    expect(unrelated.events).toEqual([]);
    expect(unrelated.error?.message).toBe(missingScope(READ).detail);
    expect(unrelated.error?.extensions?.code).toBe('permission_denied');
    await settle(owner, target.id);
  });

  it.each(['read', 'write', 'star'])('streams the run in progress to a %s key', async (name) => {
    const owner = await tenant('conv-stream-ok');
    const target = await conversationOf(owner, true);
    const followed = await follow(await keyOf(owner, name), target.id);
    expect(followed.error).toBeUndefined();
    expect(followed.events[0]).toMatchObject({ conversation: target.id });
    await settle(owner, target.id);
  });
});

describe.each(operations.map((operation) => [nameOf(operation), operation] as const))('tenant isolation: %s', (_name, operation) => {
  it("gives another organization's key nothing of the victim's conversation, over REST and GraphQL", async () => {
    const [victim, intruder] = await Promise.all([tenant('conv-victim'), tenant('conv-intruder')]);
    const target = await conversationOf(victim, true);
    const before = await stateOf(victim, target.id);
    const key = intruder.personal_api_key;

    const foreign = await call(operation, victim.environment_id, target, key, false);
    expect(foreign.status).toBe(403);
    expect(foreign.body).toEqual(NO_PROJECT);
    const foreignGql = await callGql(operation, victim.environment_id, target, key);
    expect(foreignGql.errors?.[0]?.extensions).toMatchObject({ code: 'permission_denied', status: 403 });

    const crossId = await call(operation, intruder.environment_id, target, key);
    const crossIdGql = await callGql(operation, intruder.environment_id, target, key);
    expectRefused(operation.colleague === 'hidden' ? 'hidden' : 404, crossId, crossIdGql);
    expect(JSON.stringify([foreign.body, foreignGql, crossId.body, crossIdGql])).not.toContain(target.secret);
    expect(await stateOf(victim, target.id)).toEqual(before);
    await settle(victim, target.id);
  });
});

describe.each(operations.map((operation) => [nameOf(operation), operation] as const))('owner isolation within an organization: %s', (_name, operation) => {
  it("keeps the owner's conversation from another member of the organization", async () => {
    const [owner, member] = await Promise.all([tenant('conv-owner'), tenant('conv-member')]);
    await addMember(inject('databaseUrl'), stack.url, member.personal_api_key, owner.organization_id, 1);
    const target = await conversationOf(owner, true);
    const before = await stateOf(owner, target.id);
    const key = member.personal_api_key;

    const response = await call(operation, owner.environment_id, target, key);
    const result = await callGql(operation, owner.environment_id, target, key);
    expectRefused(operation.colleague, response, result);
    expect(JSON.stringify([response.body, result])).not.toContain(target.secret);
    expect(await stateOf(owner, target.id)).toEqual(before);
    await settle(owner, target.id);
  });
});

describe('tenant and owner isolation: the conversation_stream subscription', () => {
  it.each([
    ['another organization', false],
    ['another member of the organization', true],
  ])("answers not_found to %s, and sends no event", async (_who, sameOrganization) => {
    const [victim, intruder] = await Promise.all([tenant('conv-victim'), tenant('conv-intruder')]);
    if (sameOrganization) await addMember(inject('databaseUrl'), stack.url, intruder.personal_api_key, victim.organization_id, 1);
    const target = await conversationOf(victim, true);
    const followed = await follow(intruder.personal_api_key, target.id);
    expect(followed.events).toEqual([]);
    expect(followed.error?.extensions?.code).toBe('not_found');
    expect(JSON.stringify(followed)).not.toContain(target.secret);
    await settle(victim, target.id);
  });

  it("sends none of another organization's run to a subscriber who names it on a conversation of their own", async () => {
    const [victim, intruder] = await Promise.all([tenant('conv-victim'), tenant('conv-intruder')]);
    const start = (owner: Tenant, content: string) =>
      gql(stack.graphqlUrl, 'mutation($p: Int!, $m: String!) { create_conversation(project_id: $p, content: $m) { conversation run_id } }', { p: owner.environment_id, m: content }, owner.personal_api_key);
    const secret = `secret-${randomUUID()}`;
    const victimRun = (await start(victim, `${secret} [slow:500] [words:20]`)).data.create_conversation;
    const own = (await start(intruder, 'Mine')).data.create_conversation.conversation;
    // The run id is the victim's alone (create_conversation and the stream's events tell it); a guess or a leak must not open its log.
    const followed = await follow(intruder.personal_api_key, own, victimRun.run_id);
    expect(followed.events.filter((event) => event.conversation === victimRun.conversation)).toEqual([]);
    expect(JSON.stringify(followed)).not.toContain(secret);
    await settle(victim, victimRun.conversation);
  });
});

const refusals: { name: string; path?: (id: string) => string; body: (id: string) => unknown; status: number; expected: Record<string, unknown> }[] = [
  { name: 'content of 40,001 characters', body: (id) => ({ content: 'x'.repeat(40_001), conversation: id }), status: 400, expected: { attr: 'content', code: 'max_length' } },
  { name: 'blank content', body: (id) => ({ content: '', conversation: id }), status: 400, expected: { attr: 'content', code: 'blank' } },
  { name: 'a conversation id that is not a UUID', body: () => ({ content: 'Hello', conversation: 'not-a-uuid' }), status: 400, expected: { attr: 'conversation' } },
  { name: 'contextual_tools that are not an object', body: (id) => ({ content: 'Hello', conversation: id, contextual_tools: [1] }), status: 400, expected: { attr: 'contextual_tools' } },
  { name: 'an unknown agent_mode', body: (id) => ({ content: 'Hello', conversation: id, agent_mode: 'nope' }), status: 400, expected: { attr: 'agent_mode', code: 'invalid_choice', detail: '"nope" is not a valid choice.' } },
  { name: 'an appended message of 10,001 characters', path: (id) => `${id}/append_message`, body: () => ({ content: 'x'.repeat(10_001) }), status: 400, expected: { attr: 'content', code: 'max_length' } },
  { name: 'a queued message of 40,001 characters', path: (id) => `${id}/queue`, body: () => ({ content: 'x'.repeat(40_001) }), status: 400, expected: { attr: 'content', code: 'max_length' } },
  { name: 'a body over 1 MiB', body: (id) => ({ content: 'x'.repeat(1_100_000), conversation: id }), status: 413, expected: { code: 'request_too_large' } },
  { name: 'malformed JSON', body: () => '{', status: 400, expected: { type: 'invalid_request', code: 'parse_error' } },
];

describe('bad input changes nothing', () => {
  it.each(refusals.map((refusal) => [`${refusal.name} with ${refusal.status}`, refusal] as const))('refuses %s', async (_name, { path, body, status, expected }) => {
    const owner = await tenant('conv-bad-input');
    const target = await conversationOf(owner);
    const before = await stateOf(owner, target.id);
    const response = await api(stack.url, 'POST', url(owner.environment_id, path?.(target.id) ?? ''), { key: owner.personal_api_key, body: body(target.id) });
    expect(response.status, response.text).toBe(status);
    expect(response.body).toMatchObject({ type: status === 400 ? 'validation_error' : 'invalid_request', ...expected });
    expect(await stateOf(owner, target.id)).toEqual(before);
  });

  it('refuses a third queued message with 409 queue_full while two wait', async () => {
    const owner = await tenant('conv-queue-full');
    const target = await conversationOf(owner, true);
    const queue = url(owner.environment_id, `${target.id}/queue`);
    const second = await api(stack.url, 'POST', queue, { key: owner.personal_api_key, body: { content: 'second' } });
    expect(second.body.messages).toHaveLength(2);
    const before = await stateOf(owner, target.id);
    const third = await api(stack.url, 'POST', queue, { key: owner.personal_api_key, body: { content: 'third' } });
    expect(third.status).toBe(409);
    expect(third.body).toMatchObject({ code: 'queue_full', detail: 'Only two messages can be queued at a time.', attr: null });
    expect(await stateOf(owner, target.id)).toEqual(before);
    await settle(owner, target.id);
  });
});

describe('POST …/conversations without content', () => {
  const start = (owner: Tenant, body: Record<string, unknown>) => api(stack.url, 'POST', url(owner.environment_id, '', false), { key: owner.personal_api_key, body });

  it('answers 400 for a conversation that does not exist, and creates none', async () => {
    const owner = await tenant('conv-attach-unknown');
    const response = await start(owner, { conversation: randomUUID() });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'Cannot stream from non-existent conversation', attr: null });
    expect((await api(stack.url, 'GET', url(owner.environment_id), { key: owner.personal_api_key })).body.count).toBe(0);
  });

  it('answers 400 for an idle conversation, and changes nothing', async () => {
    const owner = await tenant('conv-attach-idle');
    const target = await conversationOf(owner);
    const before = await stateOf(owner, target.id);
    const response = await start(owner, { conversation: target.id });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'Cannot continue streaming from an idle conversation', attr: null });
    expect(await stateOf(owner, target.id)).toEqual(before);
  });

  it('answers 409 for content while a run is in progress, and changes nothing', async () => {
    const owner = await tenant('conv-attach-busy');
    const target = await conversationOf(owner, true);
    const before = await stateOf(owner, target.id);
    const response = await start(owner, { conversation: target.id, content: 'Another one' });
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ code: 'conversation_busy', detail: 'Cannot resume streaming with a new message', attr: null });
    expect(await stateOf(owner, target.id)).toEqual(before);
    // Without content, the same request names the run in progress.
    const attached = await start(owner, { conversation: target.id });
    expect(attached.status).toBe(201);
    expect(attached.body).toMatchObject({ conversation: target.id, content: null });
    await settle(owner, target.id);
  });
});
