import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationsPath, idleConversation, streamConversation } from './kit/conversations.js';
import { startFakeLlm, type FakeLlm } from './kit/fake-llm.js';
import { api } from './kit/http.js';
import { freePort, startPlatform, type Platform } from './kit/process.js';
import type { Tenant } from './kit/seed.js';
import { collect, wsClient } from './kit/ws.js';

/** `npm start` on its defaults (embedded PostgreSQL, in-process pub/sub), with a stand-in model behind OPENAI_BASE_URL. */
describe('conversations in embedded mode', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'analytics-embedded-conv-'));
  let llm: FakeLlm;
  let platform: Platform | undefined;
  let env: Record<string, string>;

  beforeAll(async () => {
    llm = await startFakeLlm();
    env = { DATA_DIR: dataDir, PORT: String(await freePort()), LOG_LEVEL: 'warn', OPENAI_API_KEY: 'sk-embedded', ...llm.env };
    platform = await startPlatform(env);
  });
  afterAll(async () => {
    platform?.child.kill('SIGTERM');
    await platform?.exited;
    await llm?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('streams over SSE and graphql-ws, and keeps the history across a restart', async () => {
    const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8'));
    const owner = { ...boot, email: 'admin@localhost' } as Tenant;
    const id = randomUUID();
    const client = wsClient(`${platform!.url.replace('http', 'ws')}/graphql`, owner.personal_api_key);
    // Slow enough (3 s) that the subscription below starts during the run, on whichever worker its socket lands.
    const created = await api(platform!.url, 'POST', conversationsPath(owner), { key: owner.personal_api_key, body: { content: 'Embedded [slow:300] [words:10]', conversation: id } });
    expect(created.status).toBe(201);
    const follow = collect(client, 'subscription($c: ID!) { conversation_stream(conversation: $c) { sequence kind delta detail } }', { c: id });
    await expect.poll(() => follow.results.some((result) => result.data?.conversation_stream.detail === 'finished'), { timeout: 10_000 }).toBe(true);
    const events = follow.results.map((result) => result.data.conversation_stream);
    expect(events.map((event: any) => event.sequence)).toEqual(events.map((_: unknown, index: number) => events[0].sequence + index));
    expect(events.filter((event: any) => event.kind === 'message_chunk').map((event: any) => event.delta).join('')).toBe('Answer: w1 w2 w3 w4 w5 w6 w7 w8 w9 w10');
    follow.dispose();
    await client.dispose();

    const streamed = await streamConversation(platform!.url, owner, { content: 'Second [words:3]', conversation: id });
    expect(streamed.frames.filter((frame) => frame.event === 'message').at(-1)!.data.content).toBe('Answer: w1 w2 w3');
    await idleConversation(platform!.url, owner, id);

    platform!.child.kill('SIGTERM');
    expect(await platform!.exited).toBe(0);
    platform = await startPlatform(env);
    const kept = await api(platform.url, 'GET', conversationsPath(owner, `${id}/`), { key: owner.personal_api_key });
    expect(kept.body.messages.map((message: any) => message.content)).toEqual([
      'Embedded [slow:300] [words:10]',
      'Answer: w1 w2 w3 w4 w5 w6 w7 w8 w9 w10',
      'Second [words:3]',
      'Answer: w1 w2 w3',
    ]);
  });
});
