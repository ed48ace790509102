import { expect } from 'vitest';
import { api } from './http.js';
import type { Tenant } from './seed.js';

/** The conversations path of a tenant's environment. */
export const conversationsPath = (owner: Tenant, rest = '') => `/api/environments/${owner.environment_id}/conversations/${rest}`;

export interface SseFrame {
  event: string;
  data: any;
}

/** POST …/conversations/ as an SSE client: the status, the frames until the stream ends, and how long the first byte took. */
export async function streamConversation(baseUrl: string, owner: Tenant, body: Record<string, unknown>, key = owner.personal_api_key) {
  const started = Date.now();
  const response = await fetch(`${baseUrl}${conversationsPath(owner)}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
  });
  const frames: SseFrame[] = [];
  let firstByteMs: number | null = null;
  const text = await new Response(
    response.body!.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          firstByteMs ??= Date.now() - started;
          controller.enqueue(chunk);
        },
      }),
    ),
  ).text();
  if (!response.headers.get('content-type')?.includes('text/event-stream')) return { status: response.status, frames, body: JSON.parse(text), text, firstByteMs };
  for (const block of text.split('\n\n')) {
    const event = /^event: (.*)$/m.exec(block)?.[1];
    const data = /^data: (.*)$/m.exec(block)?.[1];
    if (event && data) frames.push({ event, data: JSON.parse(data) });
  }
  return { status: response.status, frames, body: undefined, text, firstByteMs };
}

/** Waits until the conversation is idle again (its run ended), and answers its record. */
export async function idleConversation(baseUrl: string, owner: Tenant, id: string, key = owner.personal_api_key, ms = 15_000): Promise<any> {
  const deadline = Date.now() + ms;
  for (;;) {
    const got = await api(baseUrl, 'GET', conversationsPath(owner, `${id}/`), { key });
    expect(got.status, got.text).toBe(200);
    if (got.body.status === 'idle') return got.body;
    if (Date.now() > deadline) throw new Error(`conversation ${id} still ${got.body.status}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
