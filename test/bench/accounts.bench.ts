import { randomBytes } from 'node:crypto';
import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Secret, TOTP } from 'otpauth';
import { COST, hashPassword, verifyPassword } from '../../subgraphs/accounts/users/password.js';
import { createScratchDatabase, dropDatabase } from '../../subgraphs/shared/db/database.js';
import { onExit, reportLoggedErrors, runBench, say } from './bench.lifecycle.js';
import { percentiles } from './load.runner.js';
import { platformEnv, startPlatform } from './platform.fixture.js';
import { codeVersion, load1, machine } from './results.report.js';
import { seedTwoFactorUsers, type TwoFactorUser } from './accounts.seed.js';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const RESULTS_FILE = join(ROOT, 'test/bench/RESULTS.md');
const SERVER_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const HASHES = 8;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 50);
/** Users per connection, one after another; each sends its current TOTP code, then its ten backup codes. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);

/**
 * Issue 4's measures: how long one password hash takes here (and with which parameters), and
 * `validate_2fa` latency with 50 requests in flight, through REST on the platform.
 */
async function main(): Promise<void> {
  const startLoad = load1();
  const code = codeVersion(ROOT);
  say(`Machine: ${machine()}; load average ${startLoad.toFixed(2)}; code ${code}`);
  const hashing = await measureHashing();
  say(`Password hash (scrypt N=${COST.N}, r=${COST.r}, p=${COST.p}): ${describe(hashing.hash)}; verify: ${hashing.verifyMs.toFixed(0)} ms`);

  const databaseUrl = await createScratchDatabase(SERVER_URL, 'analytics_accounts_bench');
  onExit(() => dropDatabase(databaseUrl));
  const dataDir = mkdtempSync(join(tmpdir(), 'analytics-accounts-bench-'));
  onExit(() => rmSync(dataDir, { recursive: true, force: true }));
  const secretKey = randomBytes(32).toString('base64url');
  const platform = await startPlatform(ROOT, { ...platformEnv({ databaseUrl, secretKey, dataDir }), LOG_LEVEL: 'warn' });
  onExit(() => platform.child.stop());
  onExit(() => reportLoggedErrors([platform.child]));
  const users = await seedTwoFactorUsers(databaseUrl, secretKey, CONCURRENCY * ROUNDS);
  say(`Platform on ${platform.url}; ${users.length} users with 2FA on`);

  const run = await validateUnderLoad(platform.url, users);
  const latency = percentiles(run.timings);
  const [first, later] = [percentiles(run.first), percentiles(run.later)];
  const split = `a key's first request (looked up): p50 ${first.p50.toFixed(1)} ms, p95 ${first.p95.toFixed(1)} ms; later requests (key cached): p50 ${later.p50.toFixed(1)} ms, p95 ${later.p95.toFixed(1)} ms`;
  say(`validate_2fa, ${CONCURRENCY} in flight: ${run.timings.length} answers in ${run.seconds.toFixed(1)} s (${(run.timings.length / run.seconds).toFixed(0)}/s), p50 ${latency.p50.toFixed(1)} ms, p95 ${latency.p95.toFixed(1)} ms, p99 ${latency.p99.toFixed(1)} ms; failures: ${run.failures.length}`);
  say(`  ${split}`);
  appendFileSync(
    RESULTS_FILE,
    [
      '',
      `## ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC — password hashing and validate_2fa (accounts.bench.ts)`,
      '',
      `Machine: ${machine()}. Code: ${code}. Load average (1 min) at the start: ${startLoad.toFixed(2)}.`,
      'Run with `npm run --silent build && node dist/test/bench/accounts.bench.js`.',
      '',
      `- Password hash: scrypt, N=2^${Math.log2(COST.N!)}, r=${COST.r}, p=${COST.p} (128 MiB; OWASP's recommended scrypt cost), 16-byte salt, 32-byte key.`,
      `  ${HASHES} hashes one after another: ${describe(hashing.hash)}. A verification costs the same (${hashing.verifyMs.toFixed(0)} ms); it runs on libuv's thread pool, so it does not block the event loop.`,
      `- validate_2fa through REST (\`POST /api/users/@me/validate_2fa/\`), ${CONCURRENCY} requests in flight from the bench process (on the same 2 cores). Each connection`,
      `  goes through ${ROUNDS} users with 2FA on; each user sends its current TOTP code and then its ten backup codes, one request at a time, so every`,
      `  answer is a real acceptance (never a replay) and a key is looked up once, then cached by the router as for a user at work:`,
      `  ${run.timings.length} answers in ${run.seconds.toFixed(1)} s (${(run.timings.length / run.seconds).toFixed(0)} requests/s), p50 ${latency.p50.toFixed(1)} ms, p95 **${latency.p95.toFixed(1)} ms**, p99 ${latency.p99.toFixed(1)} ms, non-200: ${run.failures.length}.`,
      `  Of these, ${split}.`,
      '',
    ].join('\n'),
  );
  say(`Appended to ${RESULTS_FILE}`);
  if (run.failures.length > 0) throw new Error(`validate_2fa answered other than 200:\n${run.failures.slice(0, 3).join('\n')}`);
}

async function measureHashing(): Promise<{ hash: number[]; verifyMs: number }> {
  const hash: number[] = [];
  let stored = '';
  for (let index = 0; index < HASHES; index++) {
    const started = performance.now();
    stored = await hashPassword(`bench password ${index}`);
    hash.push(performance.now() - started);
  }
  const started = performance.now();
  if (!(await verifyPassword(`bench password ${HASHES - 1}`, stored))) throw new Error('the password did not verify');
  return { hash, verifyMs: performance.now() - started };
}

function describe(timings: number[]): string {
  const sorted = [...timings].sort((a, b) => a - b);
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  return `mean ${mean.toFixed(0)} ms, min ${sorted[0]!.toFixed(0)} ms, max ${sorted.at(-1)!.toFixed(0)} ms`;
}

/** CONCURRENCY loops, each going through its share of the users: a TOTP code, then every backup code. */
async function validateUnderLoad(url: string, users: TwoFactorUser[]): Promise<LoadRun> {
  const timings: number[] = [];
  const first: number[] = [];
  const failures: string[] = [];
  const validate = async (key: string, token: string, firstOfKey = false) => {
    const sent = performance.now();
    const response = await fetch(`${url}/api/users/@me/validate_2fa/`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ token }),
    });
    const body = await response.text();
    if (response.status !== 200) failures.push(`${response.status} ${body.slice(0, 300)}`);
    else (firstOfKey ? first : timings).push(performance.now() - sent);
  };
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, lane) => {
      for (let index = lane; index < users.length; index += CONCURRENCY) {
        const { key, secret, backupCodes } = users[index]!;
        await validate(key, TOTP.generate({ secret: Secret.fromBase32(secret) }), true);
        for (const code of backupCodes) await validate(key, code);
      }
    }),
  );
  return { timings: [...first, ...timings], first, later: timings, seconds: (performance.now() - started) / 1000, failures };
}

interface LoadRun {
  /** Every 200's latency; `first` of a key (looked up by the router) and the `later` ones (cached). */
  timings: number[];
  first: number[];
  later: number[];
  seconds: number;
  failures: string[];
}

runBench(main);
