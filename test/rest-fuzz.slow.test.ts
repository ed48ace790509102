import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createScratchDatabase, dropDatabase } from '../subgraphs/shared/db/database.js';
import { anyRead, malformedGraphqlGet, operationsOf, refusedWrite, send, unknownMethod, type FuzzWorld } from './kit/fuzz.js';
import { api } from './kit/http.js';
import { seedTenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';
import { changedTables, fingerprint } from './kit/state.js';

/**
 * Property-based bad requests over every operation of the OpenAPI document: reads with any
 * parameters and credentials, and writes that are wrong in at least one way. None may be answered
 * with a 5xx; every refusal carries the contract's body; and refused writes change nothing: the
 * whole database (a scratch one of this suite's own) is compared before and after every round.
 */
const REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 10_000);
const ROUND = 250;
const SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);

/** Whether a refusal is the contract's: its body over REST, the first error's extensions over GraphQL. */
function isContractError(path: string, text: string): boolean {
  const body = JSON.parse(text);
  if (!path.startsWith('/graphql')) return Object.keys(body).sort().join() === 'attr,code,detail,type';
  const [first] = body.errors ?? [];
  return typeof first?.message === 'string' && ['attr', 'code', 'type'].every((key) => key in (first.extensions ?? {}));
}

let databaseUrl: string;
let stack: Stack;
let world: FuzzWorld;

beforeAll(async () => {
  databaseUrl = await createScratchDatabase(inject('databaseUrl'), 'fuzz');
  stack = await startStack({ databaseUrl });
  const [tenant, other] = await Promise.all([seedTenant(databaseUrl, 'fuzz'), seedTenant(databaseUrl, 'fuzz-other')]);
  const config = await api(stack.url, 'POST', `/api/environments/${tenant.environment_id}/customer_profile_configs/`, { key: tenant.personal_api_key, body: { scope: 'person', content: { fuzz: true } } });
  const keys = await api(stack.url, 'GET', '/api/personal_api_keys/', { key: tenant.personal_api_key });
  world = {
    key: tenant.personal_api_key,
    otherKey: other.personal_api_key,
    projectApiKey: tenant.project_api_key,
    environmentId: tenant.environment_id,
    otherEnvironmentId: other.environment_id,
    organizationId: tenant.organization_id,
    otherOrganizationId: other.organization_id,
    userUuid: tenant.user_uuid,
    otherUserUuid: other.user_uuid,
    objectIds: [config.body.id, (keys.body.results ?? keys.body)[0].id],
  };
}, 60_000);
afterAll(async () => {
  await stack?.stop();
  if (databaseUrl) await dropDatabase(databaseUrl);
});

describe('bad requests generated from the OpenAPI document', () => {
  it(`answers ${REQUESTS} of them without a 5xx, refuses every bad write with the contract's body, and changes nothing (seed ${SEED})`, async () => {
    const document = (await api(stack.url, 'GET', '/api/schema/')).body;
    // Starting a 2FA setup is a GET that keeps the new secret (PostHog keeps it in the session):
    // a read that writes by design, tested with the rest of 2FA.
    const operations = operationsOf(document).filter((operation) => !operation.path.endsWith('/two_factor_start_setup/'));
    const request = fc.oneof(
      { arbitrary: fc.constantFrom(...operations).chain((operation) => (operation.method === 'GET' ? anyRead(world, operation) : refusedWrite(world, operation))), weight: 16 },
      { arbitrary: fc.constantFrom(...operations.filter((o) => o.path.startsWith('/api/'))).chain((operation) => unknownMethod(world, operation)), weight: 1 },
      { arbitrary: malformedGraphqlGet(world), weight: 1 },
    );
    const statuses = new Map<number, number>();
    const kinds = new Map<string, number>();
    const before = await fingerprint(databaseUrl);

    for (let round = 0; round * ROUND < REQUESTS; round++) {
      const sent: string[] = [];
      await fc.assert(
        fc.asyncProperty(request, async (candidate) => {
          const { status, text, allow } = await send(stack.url, candidate);
          const where = `${candidate.kind}: ${candidate.method} ${candidate.path} ${String(candidate.body ?? '')} → ${status} ${text.slice(0, 300)}`;
          sent.push(where.slice(0, 400));
          expect(status, where).toBeLessThan(500);
          if (candidate.kind !== 'read') expect(status, where).toBeGreaterThanOrEqual(400);
          if (candidate.kind === 'unknown method') expect([status, Boolean(allow)], where).toEqual([405, true]);
          if (candidate.kind === 'not UTF-8' && status === 400) expect(JSON.parse(text).code, where).toBe('parse_error');
          if (status >= 400) expect(isContractError(candidate.path, text), where).toBe(true);
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
          kinds.set(candidate.kind, (kinds.get(candidate.kind) ?? 0) + 1);
        }),
        { numRuns: Math.min(ROUND, REQUESTS - round * ROUND), seed: SEED + round },
      );
      const changed = changedTables(before, await fingerprint(databaseUrl));
      expect(changed, `round ${round} (seed ${SEED + round}) changed ${changed.join(', ')}; its requests:\n${sent.filter((line) => !line.startsWith('read') || / → 2/.test(line)).join('\n')}`).toEqual([]);
    }

    const total = [...statuses.values()].reduce((sum, n) => sum + n, 0);
    expect(total).toBeGreaterThanOrEqual(REQUESTS);
    process.stdout.write(`fuzz: ${total} requests over ${operations.length} operations, seed ${SEED}; by status ${JSON.stringify(Object.fromEntries([...statuses].sort()))}; by kind ${JSON.stringify(Object.fromEntries(kinds))}\n`);
  }, 900_000);
});
