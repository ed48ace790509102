import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

/**
 * The conversations bench's language model: a tiny OpenAI-compatible chat-completions server
 * (streaming and not), answering `[words:N]` in the last user message with N words, one chunk per
 * word, a fixed `paceMs` apart, and noting when it wrote each chunk. Words are unique tokens
 * `s<answer>w<index>` (answer numbered per streamed answer), so that a subscriber's delta, even
 * when the platform merged several chunks into one, says which chunks it carries.
 *
 * It runs in a worker thread of the bench process: its pace does not depend on the bench's event
 * loop, busy with a thousand subscribers. Times are `process.hrtime` in milliseconds, one clock
 * for every thread of the process, so the subscribers' arrival times compare with them directly.
 */
export interface BenchModel {
  /** OPENAI_BASE_URL and OPENAI_API_KEY for the platform (other providers blanked). */
  env: Record<string, string>;
  /** Pause between two chunks of a streamed answer (0: the whole answer at once). */
  setPace(ms: number): Promise<void>;
  /** When each token of streamed answer `answer` was written (hrtime ms), by token. */
  writtenAt(answer: number): Promise<Map<string, number>>;
  /** Requests seen so far: streamed answers, other completions (titles), anything else. */
  counts(): Promise<{ streamed: number; plain: number; other: number }>;
  close(): Promise<void>;
}

/** The clock of the bench: monotonic, shared by the threads of the process, in fractional ms. */
export const now = (): number => Number(process.hrtime.bigint()) / 1e6;

/** A token's answer number, or undefined when the token is not one of the model's words. */
export function answerOf(token: string): number | undefined {
  const match = /^s(\d+)w\d+$/.exec(token);
  return match ? Number(match[1]) : undefined;
}

const API_KEY = 'sk-bench-conversations';

type Question = { type: 'pace'; ms: number } | { type: 'written'; answer: number } | { type: 'counts' };
type Request = Question & { id: number };

export async function startBenchModel(paceMs: number): Promise<BenchModel> {
  const worker = new Worker(new URL(import.meta.url), { workerData: { role: 'bench-model', paceMs } });
  const waiting = new Map<number, (value: unknown) => void>();
  let nextId = 0;
  worker.on('message', (message: { id: number; value: unknown }) => {
    waiting.get(message.id)?.(message.value);
    waiting.delete(message.id);
  });
  const failed = new Promise<never>((_, reject) => worker.once('error', reject));
  failed.catch(() => undefined);
  const ask = <T>(request: Question): Promise<T> => {
    const id = ++nextId;
    const answered = new Promise<T>((resolve) => waiting.set(id, resolve as (value: unknown) => void));
    worker.postMessage({ ...request, id });
    return Promise.race([answered, failed]);
  };
  const port = await Promise.race([new Promise<number>((resolve) => worker.once('message', (message: { port: number }) => resolve(message.port))), failed]);
  const base = `http://127.0.0.1:${port}/v1`;
  return {
    env: {
      OPENAI_BASE_URL: base,
      OPENAI_API_KEY: API_KEY,
      // The platform takes the first provider with a key: only this one, whatever the shell exports.
      ANTHROPIC_API_KEY: '',
      GEMINI_API_KEY: '',
      OPENROUTER_API_KEY: '',
      ANTHROPIC_BASE_URL: base,
      GEMINI_BASE_URL: base,
      OPENROUTER_BASE_URL: base,
    },
    setPace: (ms) => ask({ type: 'pace', ms }),
    writtenAt: async (answer) => new Map(await ask<[string, number][]>({ type: 'written', answer })),
    counts: () => ask({ type: 'counts' }),
    close: async () => {
      await worker.terminate();
    },
  };
}

/** The worker's side: the HTTP server. */
function serve(initialPace: number): void {
  let pace = initialPace;
  let answers = 0;
  const counts = { streamed: 0, plain: 0, other: 0 };
  /** answer → token → when written. */
  const written = new Map<number, Map<string, number>>();

  const server = createServer((request, response) => {
    void handle(request, response).catch(() => response.destroy());
  });
  server.keepAliveTimeout = 30_000;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const path = new URL(request.url ?? '/', 'http://model').pathname;
    if (request.method !== 'POST' || !path.endsWith('/chat/completions')) {
      counts.other++;
      return json(response, 404, { error: { message: `no route ${request.method} ${path}`, type: 'invalid_request_error' } });
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { model: string; stream?: boolean; messages?: { role: string; content: unknown }[] };
    const last = lastUserText(body.messages ?? []);
    const base = { id: 'chatcmpl-bench', created: 1, model: body.model };
    if (!body.stream) {
      counts.plain++;
      const text = `Title: ${last.replace(/\[[^\]]*\]/g, '').trim().split(/\s+/).slice(0, 5).join(' ')}`;
      return json(response, 200, {
        ...base,
        object: 'chat.completion',
        choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      });
    }
    counts.streamed++;
    const answer = ++answers;
    const times = new Map<string, number>();
    written.set(answer, times);
    const count = Math.min(Number(/\[words:(\d+)\]/.exec(last)?.[1] ?? 5), 100_000);
    const paceMs = pace;
    response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    for (let index = 1; index <= count; index++) {
      if (paceMs > 0) await sleep(paceMs);
      if (response.destroyed) return;
      const token = `s${answer}w${index}`;
      const delta = index === 1 ? { role: 'assistant', content: `${token} ` } : { content: `${token} ` };
      const frame = `data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`;
      times.set(token, now());
      response.write(frame);
    }
    const usage = { prompt_tokens: 10, completion_tokens: count, total_tokens: 10 + count };
    response.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage })}\n\n`);
    response.end('data: [DONE]\n\n');
  }

  parentPort!.on('message', (request: Request) => {
    const reply = (value: unknown) => parentPort!.postMessage({ id: request.id, value });
    if (request.type === 'pace') {
      pace = request.ms;
      reply(true);
    } else if (request.type === 'written') reply([...(written.get(request.answer) ?? new Map<string, number>())]);
    else reply({ ...counts });
  });
  server.listen(0, '127.0.0.1', () => parentPort!.postMessage({ port: (server.address() as AddressInfo).port }));
}

function lastUserText(messages: { role: string; content: unknown }[]): string {
  const message = messages.findLast((candidate) => candidate.role === 'user');
  const content = message?.content;
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((part: { text?: unknown }) => (typeof part?.text === 'string' ? part.text : '')).join('\n') : '';
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

if (!isMainThread && (workerData as { role?: string } | null)?.role === 'bench-model') serve((workerData as { paceMs: number }).paceMs);
