import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { conversationsPath, idleConversation } from './kit/conversations.js';
import { sql } from './kit/db.js';
import { startFakeLlm, type FakeLlm } from './kit/fake-llm.js';
import { api } from './kit/http.js';
import { freePort, startPlatform, type Platform } from './kit/process.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, TEST_SECRET_KEY, type Stack } from './kit/stack.js';
import { collect, wsClient } from './kit/ws.js';

const FOLLOW = `subscription($c: ID!) {
  conversation_stream(conversation: $c) { sequence conversation run_id kind status detail message_id delta data }
}`;

let llm: FakeLlm;
beforeAll(async () => {
  llm = await startFakeLlm();
});
afterAll(() => llm?.close());

const words = (count: number) => Array.from({ length: count }, (_, index) => `w${index + 1}`).join(' ');

/** Follows a conversation over graphql-ws through a router; `events()` are the events so far. */
function follower(stack: { wsUrl: string }, owner: Tenant, conversation: string) {
  const client = wsClient(stack.wsUrl, owner.personal_api_key);
  const stream = collect(client, FOLLOW, { c: conversation });
  return {
    stream,
    events: () => stream.results.map((result) => result.data?.conversation_stream),
    close: async () => {
      stream.dispose();
      await client.dispose();
    },
  };
}

/** The answer a subscriber put together from its chunks. */
const answerOf = (events: any[]) => events.filter((event) => event.kind === 'message_chunk').map((event) => event.delta).join('');

/** Every event numbered one after another: no gap, no repeat. */
function expectConsecutive(events: any[]): void {
  const sequences = events.map((event) => event.sequence);
  expect(sequences).toEqual(Array.from({ length: sequences.length }, (_, index) => sequences[0] + index));
}

async function runEnded(follow: ReturnType<typeof follower>, ms = 15_000): Promise<void> {
  await expect.poll(() => follow.events().some((event) => event?.kind === 'status' && event.detail !== 'ack'), { timeout: ms }).toBe(true);
}

describe.each([
  ['in-process pub/sub', false],
  ['Redis', true],
])('conversation_stream through the router, %s', (_name, redis) => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ databaseUrl: inject('databaseUrl'), redisUrl: redis ? inject('redisUrl') : undefined, env: { ...llm.env, OPENAI_API_KEY: 'sk-server-stream' } });
  });
  afterAll(() => stack?.stop());

  it('gives several subscribers every chunk, status change and the final message, in order', async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'stream-many');
    const id = randomUUID();
    // The conversation exists first (idle), so that subscribers can follow it before the run.
    await api(stack.url, 'POST', conversationsPath(owner), { key: owner.personal_api_key, body: { content: 'warm up', conversation: id } });
    await idleConversation(stack.url, owner, id);
    const followers = [follower(stack, owner, id), follower(stack, owner, id), follower(stack, owner, id)];
    await new Promise((resolve) => setTimeout(resolve, 300));
    await api(stack.url, 'POST', conversationsPath(owner), { key: owner.personal_api_key, body: { content: `Go [words:30]`, conversation: id } });
    for (const follow of followers) await runEnded(follow);
    const reference = followers[0]!.events();
    expect(reference.map((event) => event.kind)).toEqual(expect.arrayContaining(['status', 'message', 'message_chunk']));
    expect(reference[0]).toMatchObject({ kind: 'status', status: 'in_progress', detail: 'ack', conversation: id });
    expect(reference[1]).toMatchObject({ kind: 'message', data: { type: 'human', content: 'Go [words:30]' } });
    expect(reference.at(-1)).toMatchObject({ kind: 'status', status: 'idle', detail: 'finished' });
    expect(reference.at(-2)).toMatchObject({ kind: 'message', data: { type: 'ai', content: `Answer: ${words(30)}` } });
    expect(answerOf(reference)).toBe(`Answer: ${words(30)}`);
    for (const follow of followers) {
      expectConsecutive(follow.events());
      expect(follow.events()).toEqual(reference);
      await follow.close();
    }
  });

  it('gives a subscriber that joins during a run what was produced already, then the rest, without gap or repeat', async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'stream-join');
    const id = randomUUID();
    await api(stack.url, 'POST', conversationsPath(owner), { key: owner.personal_api_key, body: { content: `Slowly [slow:30] [words:40]`, conversation: id } });
    const early = follower(stack, owner, id);
    await expect.poll(() => answerOf(early.events()).split(' ').length, { timeout: 10_000 }).toBeGreaterThan(10);
    const late = follower(stack, owner, id);
    await runEnded(early);
    await runEnded(late);
    expectConsecutive(late.events());
    expect(late.events()[0]).toMatchObject({ kind: 'conversation', data: { id } });
    expect(answerOf(late.events())).toBe(`Answer: ${words(40)}`);
    // The early one joined after the run began too: both start from the run's first event.
    expect(late.events().map((event) => event.sequence)).toEqual(early.events().map((event) => event.sequence));
    await early.close();
    await late.close();
  });
});

describe('conversation_stream with a run', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({ databaseUrl: inject('databaseUrl'), env: { ...llm.env, OPENAI_API_KEY: 'sk-server-stream' } });
  });
  afterAll(() => stack?.stop());

  it('replays a finished run whose log is kept, and completes at once for one that is over and forgotten', async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'stream-run');
    const created = await api(stack.url, 'POST', conversationsPath(owner), { key: owner.personal_api_key, body: { content: 'Short [words:3]' } });
    const { conversation } = created.body;
    const done = await idleConversation(stack.url, owner, conversation);
    const client = wsClient(stack.wsUrl, owner.personal_api_key);
    const query = 'subscription($c: ID!, $r: ID) { conversation_stream(conversation: $c, run: $r) { kind detail delta } }';
    const run = (await sqlRun(conversation))!;
    const replay = collect(client, query, { c: conversation, r: run });
    await replay.ended();
    expect(replay.results.map((result) => result.data.conversation_stream.kind).at(-1)).toBe('status');
    expect(replay.results.map((result) => result.data.conversation_stream.delta ?? '').join('')).toBe(done.messages[1].content);
    const forgotten = collect(client, query, { c: conversation, r: randomUUID() });
    await forgotten.ended();
    expect(forgotten.results).toEqual([]);
    await client.dispose();
  });
});

/** The conversation's run, from the database (the REST record does not show it). */
async function sqlRun(conversation: string): Promise<string | null> {
  const [row] = await sql<{ run_id: string }>(inject('databaseUrl'), 'select run_id from conversations.conversations where id = $1', [conversation]);
  return row?.run_id ?? null;
}

describe('across processes, with Redis', () => {
  let platform: Platform | undefined;
  let stack: Stack;
  const redisPrefix = `test-conv-cross-${process.pid}-${Date.now()}:`;
  const settings = () => ({
    DATABASE_URL: inject('databaseUrl'),
    REDIS_URL: inject('redisUrl'),
    REDIS_CHANNEL_PREFIX: redisPrefix,
    SECRET_KEY: TEST_SECRET_KEY,
    LOG_LEVEL: 'warn',
    OPENAI_API_KEY: 'sk-server-cross',
    ...llm.env,
  });
  const startOther = async () => startPlatform({ ...settings(), PORT: String(await freePort()), DATA_DIR: mkdtempSync(join(tmpdir(), 'analytics-conv-')) });

  beforeAll(async () => {
    platform = await startOther();
    stack = await startStack({ databaseUrl: inject('databaseUrl'), redisUrl: inject('redisUrl'), redisPrefix, env: { ...llm.env, OPENAI_API_KEY: 'sk-server-cross' } });
  });
  afterAll(async () => {
    platform?.child.kill('SIGKILL');
    await stack?.stop();
  });

  it('streams a run carried out by one process to a subscriber of another, and cancels it from there', async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'stream-cross');
    const id = randomUUID();
    const started = await api(platform!.url, 'POST', conversationsPath(owner), { key: owner.personal_api_key, body: { content: `Far away [slow:40] [words:100]`, conversation: id } });
    expect(started.status).toBe(201);
    const follow = follower(stack, owner, id);
    await expect.poll(() => answerOf(follow.events()).length, { timeout: 10_000 }).toBeGreaterThan(20);
    const abortedBefore = llm.aborted();
    const canceled = await api(stack.url, 'PATCH', conversationsPath(owner, `${id}/cancel/`), { key: owner.personal_api_key });
    expect(canceled.body.status).toBe('canceling');
    await runEnded(follow, 5000);
    expect(follow.events().at(-1)).toMatchObject({ kind: 'status', status: 'idle', detail: 'canceled' });
    await expect.poll(() => llm.aborted()).toBe(abortedBefore + 1);
    expectConsecutive(follow.events());
    const done = await idleConversation(stack.url, owner, id);
    expect(done.messages.at(-1).content).toBe(answerOf(follow.events()));
    await follow.close();
  });

  it('keeps the queue and the history across a restart: the next process runs what waited', async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'stream-restart');
    const id = randomUUID();
    await api(platform!.url, 'POST', conversationsPath(owner), { key: owner.personal_api_key, body: { content: `Before the restart [slow:50] [words:100]`, conversation: id } });
    const queued = await api(platform!.url, 'POST', conversationsPath(owner, `${id}/queue/`), { key: owner.personal_api_key, body: { content: 'after the restart' } });
    expect(queued.body.messages).toHaveLength(1);
    const follow = follower(stack, owner, id);
    await expect.poll(() => answerOf(follow.events()).length, { timeout: 10_000 }).toBeGreaterThan(10);
    await follow.close();
    // A graceful stop ends the run as interrupted, keeping what it wrote and the queue.
    platform!.child.kill('SIGTERM');
    expect(await platform!.exited).toBe(0);
    const [row] = await sql<{ status: string }>(inject('databaseUrl'), 'select status from conversations.conversations where id = $1', [id]);
    expect(row!.status).toBe('idle');
    platform = await startOther();
    await expect
      .poll(async () => (await api(platform!.url, 'GET', conversationsPath(owner, `${id}/`), { key: owner.personal_api_key })).body.messages.map((message: any) => message.content).at(-1), { timeout: 20_000 })
      .toBe('Answer: you said "after the restart"');
    const history = (await api(platform!.url, 'GET', conversationsPath(owner, `${id}/`), { key: owner.personal_api_key })).body.messages;
    expect(history[0].content).toBe('Before the restart [slow:50] [words:100]');
    expect(history[1].content).toMatch(/^Answer: w1/);
    expect(history.map((message: any) => message.content).slice(-2)).toEqual(['after the restart', 'Answer: you said "after the restart"']);
  });

  it('ends a run whose process died (its heartbeat stopped), and runs the queue', async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'stream-dead');
    const id = randomUUID();
    const dying = await startOther();
    await api(dying.url, 'POST', conversationsPath(owner), { key: owner.personal_api_key, body: { content: `Doomed [slow:100] [words:100]`, conversation: id } });
    await api(dying.url, 'POST', conversationsPath(owner, `${id}/queue/`), { key: owner.personal_api_key, body: { content: 'rescued' } });
    dying.child.kill('SIGKILL');
    await dying.exited;
    await sql(inject('databaseUrl'), "update conversations.conversations set run_heartbeat_at = now() - interval '1 minute' where id = $1", [id]);
    await stack.subgraphs.workers.conversations!.drain();
    const done = await idleConversation(stack.url, owner, id);
    expect(done.messages.map((message: any) => message.content).slice(-2)).toEqual(['rescued', 'Answer: you said "rescued"']);
  });
});
