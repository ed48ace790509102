import { mkdtempSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { sql } from './kit/db.js';
import { freePort, startPlatform, type Platform } from './kit/process.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { TEST_SECRET_KEY } from './kit/stack.js';

const WRITERS = 16;
const RUNS = 5;

interface Tally {
  /** Ids of the configs answered 201. */
  acknowledged: string[];
  /** Answered otherwise (a 503 with Retry-After once the stop is far along). */
  refusedAnswers: number;
  /** Sent on a connection that then closed or reset with no answer. */
  dropped: string[];
  /** Writers whose new connection was refused: the port was closed, as it should be. */
  refusedConnections: number;
}

/**
 * SIGTERM while clients write over keep-alive connections (as a pool of API clients does): every
 * request that reaches the platform is answered, a connection is closed only after an answer, and
 * what was acknowledged is in the database. A connection refused once the port is closed is no
 * drop: the writer then stops, as a client would go to another instance.
 */
describe('a graceful stop under keep-alive writers', () => {
  const running: Platform[] = [];
  afterAll(() => {
    for (const platform of running) platform.child.kill('SIGKILL');
  });

  it.each([
    ['one worker', { WORKERS: '1' }],
    ['the default workers', {}],
  ] as const)('drops no request with %s, run after run', async (_name, workers) => {
    const counts: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const platform = await startPlatform({
        DATABASE_URL: inject('databaseUrl'),
        SECRET_KEY: TEST_SECRET_KEY,
        DATA_DIR: mkdtempSync(join(tmpdir(), 'analytics-drain-')),
        PORT: String(await freePort()),
        LOG_LEVEL: 'warn',
        SHUTDOWN_TIMEOUT_SECONDS: '10',
        RATE_LIMIT_PERSONAL_KEY_PER_MINUTE: '0',
        RATE_LIMIT_PERSONAL_KEY_PER_HOUR: '0',
        ...workers,
      });
      running.push(platform);
      const owner = await seedTenant(inject('databaseUrl'), `drain${run}`);
      const tally: Tally = { acknowledged: [], refusedAnswers: 0, dropped: [], refusedConnections: 0 };
      const writers = Array.from({ length: WRITERS }, () => write(platform.url, owner, tally));
      // Every writer has its connection and writes on it when the signal comes.
      while (tally.acknowledged.length < WRITERS * 4) await sleep(50);
      platform.child.kill('SIGTERM');
      expect(await platform.exited, platform.stderr.join('').slice(-3000)).toBe(0);
      await Promise.all(writers);

      expect(tally.dropped).toEqual([]);
      expect(tally.refusedConnections).toBe(WRITERS);
      const stored = await sql<{ n: string }>(inject('databaseUrl'), 'select count(*) as n from customer_profiles.customer_profile_configs where id = any($1::uuid[])', [tally.acknowledged]);
      expect(Number(stored[0]!.n)).toBe(tally.acknowledged.length);
      counts.push(tally.dropped.length);
      process.stdout.write(`${_name}, run ${run + 1}: ${tally.acknowledged.length} acknowledged, ${tally.refusedAnswers} answered 503, ${tally.dropped.length} dropped\n`);
    }
    expect(counts).toEqual(Array(RUNS).fill(0));
  }, 900_000);
});

/** One client writing configs in a loop on a keep-alive connection of its own, until its connection is refused. */
async function write(url: string, owner: Tenant, tally: Tally): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  try {
    for (;;) {
      const outcome = await post(agent, `${url}/api/environments/${owner.environment_id}/customer_profile_configs/`, owner.personal_api_key);
      if (outcome.kind === 'refused') {
        tally.refusedConnections++;
        return;
      }
      if (outcome.kind === 'dropped') tally.dropped.push(outcome.error);
      else if (outcome.status === 201) tally.acknowledged.push(outcome.id!);
      else if (outcome.status === 503 && outcome.retryAfter) tally.refusedAnswers++;
      else throw new Error(`unexpected answer ${outcome.status}`);
    }
  } finally {
    agent.destroy();
  }
}

type Outcome = { kind: 'answered'; status: number; id?: string; retryAfter?: string } | { kind: 'refused' } | { kind: 'dropped'; error: string };

function post(agent: Agent, url: string, key: string): Promise<Outcome> {
  const body = JSON.stringify({ scope: 'person', content: { marker: 'drain' } });
  return new Promise((resolve) => {
    const sending = request(url, { agent, method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), authorization: `Bearer ${key}` } }, (response) => {
      let text = '';
      response.on('data', (chunk: Buffer) => (text += chunk.toString()));
      response.on('end', () => {
        const status = response.statusCode!;
        resolve({ kind: 'answered', status, id: status === 201 ? (JSON.parse(text) as { id: string }).id : undefined, retryAfter: response.headers['retry-after'] });
      });
      response.on('error', (error: NodeJS.ErrnoException) => resolve({ kind: 'dropped', error: `${error.code}: cut in its answer` }));
    });
    sending.on('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED' ? { kind: 'refused' } : { kind: 'dropped', error: `${error.code} (${sending.reusedSocket ? 'a kept-alive' : 'a new'} connection)` }));
    sending.end(body);
  });
}
