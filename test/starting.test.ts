import { request as httpRequest } from 'node:http';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { freePort, startPlatform } from './kit/process.js';
import { TEST_SECRET_KEY } from './kit/stack.js';

/**
 * The public port while `npm start` starts (the contract's `/healthz`: "200 once every part is
 * up and the database answers; 503 otherwise"): held from the first moment and answered with 503,
 * then handed to the platform's listener.
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
    request.setTimeout(5000, () => request.destroy(new Error('timeout')));
    request.end(body);
  });
}

const answered = (outcome: Outcome): outcome is Extract<Outcome, { status: number }> => 'status' in outcome;

describe.each(['1', '2'])('the public port while the platform starts (WORKERS=%s)', (workers) => {
  it('answers 503 from the first moment of the start until every part is up, then 200', { timeout: 120_000 }, async () => {
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
    let others: { rest: Outcome; graphql: Outcome } | undefined;
    const deadline = Date.now() + 90_000;
    for (;;) {
      const outcome = await attempt(`${base}/healthz`);
      outcomes.push(outcome);
      if (answered(outcome) && outcome.status === 503 && !others) {
        others = { rest: await attempt(`${base}/api/projects/`), graphql: await attempt(`${base}/graphql`, 'POST', JSON.stringify({ query: '{ __typename }' })) };
      }
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
      // closed. A cluster's workers bind it themselves once the primary closed it: a moment.
      if (workers === '1') expect(refusals).toEqual([]);
      else expect(refusals.length).toBeLessThanOrEqual(3);

      const { rest, graphql } = others!;
      expect(answered(rest) && rest.status).toBe(503);
      expect(answered(rest) && rest.headers['retry-after']).toBe('1');
      expect(answered(rest) && JSON.parse(rest.body)).toEqual({ type: 'server_error', code: 'service_unavailable', detail: 'The platform is starting; try again shortly.', attr: null });
      expect(answered(graphql) && graphql.status).toBe(503);
      expect(answered(graphql) && JSON.parse(graphql.body).errors[0].extensions.code).toBe('service_unavailable');

      // Once it listens, the platform's own answers.
      expect(platform.url).toBe(base);
      const after = await attempt(`${base}/healthz`);
      expect(answered(after) && after.status).toBe(200);
      const me = await attempt(`${base}/api/users/@me/`);
      expect(answered(me) && me.status).toBe(401);
    } finally {
      platform.child.kill('SIGTERM');
      await platform.exited;
    }
  });
});
