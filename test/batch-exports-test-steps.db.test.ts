import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ACTOR_HEADER, ActorSigner, SERVICE } from '../subgraphs/shared/auth/actor.js';
import { createScratchDatabase, dropDatabase } from '../subgraphs/shared/db/database.js';
import { createExport, postgresDestination, s3Destination, startReceiver, startS3, type S3Store } from './kit/batch-exports.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, TEST_SECRET_KEY, type Stack } from './kit/stack.js';

let stack: Stack;
let owner: Tenant;
let store: S3Store;
let destination: string;

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  owner = await seedTenant(inject('databaseUrl'), 'exports-steps');
  store = await startS3();
  destination = await createScratchDatabase(inject('databaseUrl'), 'export_steps');
});
afterAll(async () => {
  await stack?.stop();
  await store?.stop();
  if (destination) await dropDatabase(destination);
});

/** A call of the platform's own: to the subgraph, as the router's service actor (never reachable with a personal key). */
async function internal(query: string, variables: Record<string, unknown>) {
  const response = await fetch(stack.subgraphs.urls['batch-exports']!, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [ACTOR_HEADER]: new ActorSigner(TEST_SECRET_KEY).sign(SERVICE) },
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as { data?: any; errors?: { message: string; extensions: Record<string, unknown> }[] };
}

const STEP = 'name description result { status message }';
const runNew = (destinationInput: unknown, step: number) =>
  internal(`mutation ($p: Int!, $d: JSON, $s: Int) { run_batch_export_test_step_new(project_id: $p, destination: $d, step: $s) { ${STEP} } }`, { p: owner.environment_id, d: destinationInput, s: step });

describe('destination tests for internal callers', () => {
  it('lists the steps of each destination, and answers 400 without one and 404 for one it does not know', async () => {
    const steps = await internal('query ($p: Int!, $d: String) { batch_export_test(project_id: $p, destination: $d) { steps { name description result { status } } } }', { p: owner.environment_id, d: 'S3' });
    expect(steps.data.batch_export_test.steps).toEqual([
      { name: 'Check S3 bucket exists', description: 'Ensure the configured S3 bucket exists and that we have the required permissions to access it.', result: null },
      { name: 'Write a test object', description: 'Ensure we can write an object under the configured prefix, then delete it again.', result: null },
    ]);
    const postgres = await internal('query ($p: Int!) { batch_export_test(project_id: $p, destination: "Postgres") { steps { name } } }', { p: owner.environment_id });
    expect(postgres.data.batch_export_test.steps.map((step: { name: string }) => step.name)).toEqual(['Connect to PostgreSQL', 'Check the schema exists', 'Write a test table']);
    const missing = await internal('query ($p: Int!) { batch_export_test(project_id: $p) { steps { name } } }', { p: owner.environment_id });
    expect(missing.errors![0]!.extensions).toMatchObject({ code: 'required', status: 400, attr: 'destination' });
    const unknown = await internal('query ($p: Int!) { batch_export_test(project_id: $p, destination: "FTP") { steps { name } } }', { p: owner.environment_id });
    expect(unknown.errors![0]!.extensions).toMatchObject({ status: 404 });
  });

  it('runs each S3 step against the store, and says why a step fails in PostHog\'s words', async () => {
    for (const step of [0, 1]) expect((await runNew(s3Destination(store), step)).data.run_batch_export_test_step_new.result).toEqual({ status: 'Passed', message: null });
    // The test object was cleaned up.
    expect(await store.keys('events/')).toEqual([]);
    expect((await runNew(s3Destination(store, { bucket_name: 'no-such-bucket' }), 0)).data.run_batch_export_test_step_new).toEqual({
      name: 'Check S3 bucket exists',
      description: 'Ensure the configured S3 bucket exists and that we have the required permissions to access it.',
      result: { status: 'Failed', message: "Bucket 'no-such-bucket' does not exist or we don't have permissions to use it" },
    });
    expect((await runNew(s3Destination(store, { aws_access_key_id: 'WRONG' }), 0)).data.run_batch_export_test_step_new.result.message).toMatch(/We couldn't access bucket 'exports'/);
    expect((await runNew({ type: 'S3', config: { bucket_name: store.bucket } }, 0)).data.run_batch_export_test_step_new.result).toEqual({ status: 'Failed', message: "The test step cannot run as it's not configured." });
    const outOfRange = await runNew(s3Destination(store), 7);
    expect(outOfRange.errors![0]!.extensions).toMatchObject({ status: 400, attr: 'step' });
  });

  it('runs each PostgreSQL step, writing nothing that lasts', async () => {
    for (const step of [0, 1, 2]) expect((await runNew(postgresDestination(destination), step)).data.run_batch_export_test_step_new.result).toEqual({ status: 'Passed', message: null });
    const refused = await runNew(postgresDestination(destination, { password: 'wrong', user: 'nobody-at-all' }), 0);
    expect(refused.data.run_batch_export_test_step_new.result.status).toBe('Failed');
    expect((await runNew(postgresDestination(destination, { schema: 'nowhere' }), 1)).data.run_batch_export_test_step_new.result).toEqual({ status: 'Failed', message: "Schema 'nowhere' does not exist or we don't have permissions to use it" });
  });

  it('runs an HTTP step against the URL', async () => {
    const receiver = await startReceiver((request) => (request.headers.authorization === 'Bearer good' ? 200 : 401));
    try {
      expect((await runNew({ type: 'HTTP', config: { url: receiver.url, token: 'good' } }, 0)).data.run_batch_export_test_step_new.result.status).toBe('Passed');
      expect((await runNew({ type: 'HTTP', config: { url: receiver.url, token: 'bad' } }, 0)).data.run_batch_export_test_step_new.result.message).toMatch(/refused the token \(401\)/);
    } finally {
      await receiver.stop();
    }
  });

  it("runs a step on a stored export's config, whose secrets need not be sent again", async () => {
    const created = await createExport(stack, owner, { destination: s3Destination(store) });
    const stored = await internal(`mutation ($p: Int!, $id: String!) { run_batch_export_test_step(project_id: $p, id: $id, step: 1) { ${STEP} } }`, { p: owner.environment_id, id: created.id });
    expect(stored.data.run_batch_export_test_step.result).toEqual({ status: 'Passed', message: null });
    const overridden = await internal(`mutation ($p: Int!, $id: String!, $d: JSON) { run_batch_export_test_step(project_id: $p, id: $id, destination: $d, step: 0) { ${STEP} } }`, {
      p: owner.environment_id,
      id: created.id,
      d: { config: { bucket_name: 'elsewhere' } },
    });
    expect(overridden.data.run_batch_export_test_step.result.message).toBe("Bucket 'elsewhere' does not exist or we don't have permissions to use it");
  });
});
