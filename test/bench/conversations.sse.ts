import { randomUUID } from 'node:crypto';
import { Agent, request as httpRequest } from 'node:http';
import { percentiles } from './load.runner.js';
import { answerOf, now } from './conversations.model.js';
import { tokensOf } from './conversations.fanout.js';

/** Words of each streamed answer in the SSE case. */
export const SSE_WORDS = 20;
const REQUEST_TIMEOUT_MS = 30_000;

export interface SseFigures {
  requests: number;
  /** 200, `text/event-stream`, and a stream that ended with the whole answer and no error frame. */
  ok: number;
  firstByte: { p50: number; p99: number };
  end: { p50: number; p99: number };
  /** Wall time of the whole series. */
  seconds: number;
  failures: string[];
}

export interface SseTarget {
  url: string;
  environmentId: number;
  key: string;
}

let serial = 0;

/**
 * POSTs `requests` distinct messages, each to a new conversation, with `Accept: text/event-stream`,
 * `concurrency` at a time over kept-alive connections, and times from sending each request to
 * the first byte of its body and to the end of its stream.
 */
export async function timeSse(target: SseTarget, requests: number, concurrency: number): Promise<SseFigures> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const firstByte: number[] = [];
  const end: number[] = [];
  const failures: string[] = [];
  let ok = 0;
  let next = 0;
  const started = now();
  const sender = async () => {
    while (next < requests) {
      next++;
      const outcome = await streamOnce(target, agent, `bench sse ${process.pid}-${++serial} [words:${SSE_WORDS}]`);
      if (outcome.failure) {
        if (failures.length < 5) failures.push(outcome.failure);
        continue;
      }
      ok++;
      firstByte.push(outcome.firstByteMs);
      end.push(outcome.endMs);
    }
  };
  try {
    await Promise.all(Array.from({ length: concurrency }, sender));
  } finally {
    agent.destroy();
  }
  const first = percentiles(firstByte);
  const last = percentiles(end);
  return { requests, ok, firstByte: { p50: first.p50, p99: first.p99 }, end: { p50: last.p50, p99: last.p99 }, seconds: (now() - started) / 1000, failures };
}

interface Outcome {
  firstByteMs: number;
  endMs: number;
  failure?: string;
}

function streamOnce(target: SseTarget, agent: Agent, content: string): Promise<Outcome> {
  const body = JSON.stringify({ content, conversation: randomUUID() });
  const address = new URL(`/api/environments/${target.environmentId}/conversations/`, target.url);
  return new Promise<Outcome>((resolve) => {
    const sent = now();
    let firstByteMs = Number.NaN;
    const chunks: Buffer[] = [];
    const fail = (failure: string) => resolve({ firstByteMs, endMs: now() - sent, failure });
    const request = httpRequest(
      address,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${target.key}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          accept: 'text/event-stream',
        },
        timeout: REQUEST_TIMEOUT_MS,
      },
      (response) => {
        response.on('data', (chunk: Buffer) => {
          if (chunks.length === 0) firstByteMs = now() - sent;
          chunks.push(chunk);
        });
        response.on('error', (error) => fail(`response error: ${error.message}`));
        response.on('end', () => {
          const endMs = now() - sent;
          const text = Buffer.concat(chunks).toString('utf8');
          const problem = checkStream(response.statusCode ?? 0, String(response.headers['content-type'] ?? ''), text);
          resolve({ firstByteMs, endMs, ...(problem ? { failure: `${content}: ${problem}` } : {}) });
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`)));
    request.on('error', (error) => fail(`${content}: ${error.message}`));
    request.end(body);
  });
}

/** Why a stream is not the whole answer as PostHog streams it, or null when it is. */
function checkStream(status: number, contentType: string, text: string): string | null {
  if (status !== 200 || !contentType.includes('text/event-stream')) return `status ${status} ${contentType}: ${text.slice(0, 300)}`;
  const frames = text
    .split('\n\n')
    .map((block) => ({ event: /^event: (.*)$/m.exec(block)?.[1], data: /^data: (.*)$/m.exec(block)?.[1] }))
    .filter((frame) => frame.event && frame.data);
  if (frames.some((frame) => frame.event === 'status' && frame.data!.includes('generation_error'))) return `generation_error: ${text.slice(-300)}`;
  const answers = frames.filter((frame) => frame.event === 'message').map((frame) => JSON.parse(frame.data!) as { type?: string; content?: string });
  const last = answers.filter((message) => message.type === 'ai').at(-1);
  const tokens = tokensOf(last?.content ?? null);
  const answer = answerOf(tokens[0] ?? '');
  const whole = tokens.length === SSE_WORDS && tokens.every((token, index) => token === `s${answer}w${index + 1}`);
  return whole ? null : `the stream ended without the whole answer (${tokens.length} words): ${text.slice(-300)}`;
}
