import { request as httpRequest } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { freePort, startPlatform } from './kit/process.js';
import { TEST_SECRET_KEY } from './kit/stack.js';

/**
 * The public port while `npm start` starts (the contract's `/healthz`: "200 once every part is
 * up and the database answers; 503 otherwise"): held from the first moment, `/healthz` answered
 * with 503, other requests held until the platform listens and then answered by it.
 */
type Outcome = { status: number; body: string; headers: Record<string, string | string[] | undefined> } | { error: string };

/** One request on a connection of its own: its answer, or the connection's failure (refused, reset). */
function attempt(url: string, method = 'GET', body?: string): Promise<Outcome> {
  return new Promise((resolve) => {
    const request = httpRequest(url, { method, agent: false, headers: body ? { 'content-type': 'application/json' } : {} }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'), headers: response.headers }));
      response.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    });
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? error.message }));
    request.setTimeout(60_000, () => request.destroy(new Error('timeout')));
    request.end(body);
  });
}

const GRAPHQL_BODY = JSON.stringify({ query: '{ __typename }' });

/** How a connection fails in a cluster's port hand-over: refused once closed, reset if it was queued on the closing socket. */
const HAND_OVER_FAILURES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE']);

const answered = (outcome: Outcome): outcome is Extract<Outcome, { status: number }> => 'status' in outcome;

describe.each(['1', '2'])('the public port while the platform starts (WORKERS=%s)', (workers) => {
  it('answers /healthz 503 from the first moment of the start until every part is up, and serves what came meanwhile once it is', { timeout: 120_000 }, async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const starting = startPlatform({
      DATABASE_URL: inject('databaseUrl'),
      SECRET_KEY: TEST_SECRET_KEY,
      DATA_DIR: mkdtempSync(join(tmpdir(), 'analytics-starting-')),
      PORT: String(port),
      LOG_LEVEL: 'warn',
      WORKERS: workers,
    });
    starting.catch(() => undefined);
    const outcomes: Outcome[] = [];
    let early: { rest: Promise<Outcome>; graphql: Promise<Outcome> } | undefined;
    const deadline = Date.now() + 90_000;
    for (;;) {
      const outcome = await attempt(`${base}/healthz`);
      outcomes.push(outcome);
      // Sent while the platform starts, and left waiting for their answers.
      if (answered(outcome) && outcome.status === 503 && !early) early = { rest: attempt(`${base}/api/users/@me/`), graphql: attempt(`${base}/graphql`, 'POST', GRAPHQL_BODY) };
      if ((answered(outcome) && outcome.status === 200) || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const platform = await starting;
    try {
      const first503 = outcomes.findIndex((outcome) => answered(outcome) && outcome.status === 503);
      expect(first503).toBeGreaterThanOrEqual(0);
      // Before the port was held: the process was loading (refused); never anything else.
      expect(outcomes.slice(0, first503).every((outcome) => !answered(outcome) && outcome.error === 'ECONNREFUSED')).toBe(true);
      const held = outcomes.slice(first503);
      const last = held.at(-1)!;
      expect(answered(last) && last.status).toBe(200);
      expect(answered(last) && JSON.parse(last.body)).toEqual({ status: 'ok' });
      for (const outcome of held.slice(0, -1)) {
        if (!answered(outcome)) continue;
        expect(outcome.status).toBe(503);
        expect(JSON.parse(outcome.body)).toEqual({ status: 'starting' });
        expect(outcome.headers['retry-after']).toBe('1');
        expect(outcome.headers.connection).toBe('close');
      }
      const refusals = held.filter((outcome) => !answered(outcome));
      // In one process the platform's listener takes the held socket over: the port is never
      // closed. A cluster's workers bind it themselves once the primary closed it: failed
      // connections then fall in that one hand-over, after the last 503 and before the first 200,
      // however long a loaded machine makes it. They are refused, or reset (or broken as the request
      // was written) when the kernel had queued them on the socket as it closed: none was read.
      if (workers === '1') expect(refusals).toEqual([]);
      else {
        const last503 = held.findLastIndex((outcome) => answered(outcome) && outcome.status === 503);
        expect(held.slice(last503 + 1, -1).filter((outcome) => answered(outcome) || !HAND_OVER_FAILURES.has(outcome.error))).toEqual([]);
        expect(held.slice(0, last503).filter((outcome) => !answered(outcome))).toEqual([]);
      }

      // What was sent while it started is answered as the platform answers the same once it listens.
      expect(platform.url).toBe(base);
      const after = await attempt(`${base}/healthz`);
      expect(answered(after) && after.status).toBe(200);
      const [rest, graphql] = await Promise.all([early!.rest, early!.graphql]);
      const [restAfter, graphqlAfter] = [await attempt(`${base}/api/users/@me/`), await attempt(`${base}/graphql`, 'POST', GRAPHQL_BODY)];
      expect(answered(restAfter) && restAfter.status).toBe(401);
      expect(answered(rest) && [rest.status, JSON.parse(rest.body)]).toEqual(answered(restAfter) && [restAfter.status, JSON.parse(restAfter.body)]);
      expect(answered(graphql) && [graphql.status, graphql.headers['content-type'], JSON.parse(graphql.body)]).toEqual(
        answered(graphqlAfter) && [graphqlAfter.status, graphqlAfter.headers['content-type'], JSON.parse(graphqlAfter.body)],
      );
    } finally {
      platform.child.kill('SIGTERM');
      await platform.exited;
    }
  });
});
