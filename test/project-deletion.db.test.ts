import { MikroORM } from '@mikro-orm/postgresql';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { subgraphNamed } from '../subgraphs/index.js';
import { startDeletionWorker } from '../router/process/deletion.worker.js';
import { ormOptions } from '../subgraphs/shared/db/orm.js';
import { createLogger } from '../subgraphs/shared/logger.js';
import { api } from './kit/http.js';
import { anEvent, applyProfiles, eventCount, postBatch } from './kit/ingest.js';
import { addMember, seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
let db: pg.Client;

const count = async (sql: string, id: number) => Number((await db.query(sql, [id])).rows[0].count);
const projectRows = (id: number) => count('select count(*) from projects.projects where id = $1', id);
const environmentRows = (id: number) => count('select count(*) from projects.environments where project_id = $1', id);
const configRows = (id: number) => count('select count(*) from customer_profiles.customer_profile_configs where environment_id = $1', id);
/** Every row ingestion keeps for an environment, in all its tables, and its events in their store. */
const ingestionRows = async (id: number) =>
  (await eventCount(inject('databaseUrl'), id)) +
  (await count(
    `select (select count(*) from ingestion.event_ids where environment_id = $1)
          + (select count(*) from ingestion.persons where environment_id = $1) + (select count(*) from ingestion.person_distinct_ids where environment_id = $1)
          + (select count(*) from ingestion.groups where environment_id = $1) + (select count(*) from ingestion.profile_updates where environment_id = $1) as count`,
    id,
  ));

/** A conversation's rows: the conversation, its messages and its queue. */
const conversationRows = (id: number) =>
  count(
    `select (select count(*) from conversations.conversations where environment_id = $1)
          + (select count(*) from conversations.messages m join conversations.conversations c on c.id = m.conversation_id where c.environment_id = $1)
          + (select count(*) from conversations.queue_items q join conversations.conversations c on c.id = q.conversation_id where c.environment_id = $1) as count`,
    id,
  );

/** A conversation with a message and a queued one, written as the conversations subgraph writes them. */
async function withConversation(tenant: Tenant): Promise<void> {
  const { rows } = await db.query(
    `insert into conversations.conversations (id, environment_id, project_id, user_id, status, run_scopes, created_at, updated_at)
     values (gen_random_uuid(), $1, $2, 1, 'idle', '[]', now(), now()) returning id`,
    [tenant.environment_id, tenant.project_id],
  );
  const id = rows[0].id as string;
  await db.query(`insert into conversations.messages (conversation_id, id, message) values ($1, gen_random_uuid(), '{"type":"human","content":"hi"}')`, [id]);
  await db.query(`insert into conversations.queue_items (id, conversation_id, content, scopes, created_at) values (gen_random_uuid(), $1, 'later', '[]', now())`, [id]);
}

/** A materialized endpoint with two versions, a cached answer and a logged run. */
async function withEndpoint(tenant: Tenant): Promise<void> {
  const path = `/api/environments/${tenant.environment_id}/endpoints/`;
  const created = await api(stack.url, 'POST', path, { key: tenant.personal_api_key, body: { name: 'doomed', query: { kind: 'HogQLQuery', query: 'select 1' }, is_materialized: true } });
  expect(created.status, created.text).toBe(201);
  await api(stack.url, 'PATCH', `${path}doomed/`, { key: tenant.personal_api_key, body: { query: { kind: 'HogQLQuery', query: 'select 2' }, is_materialized: true } });
  await stack.subgraphs.workers.endpoints!.drain();
  expect((await api(stack.url, 'POST', `${path}doomed/run/`, { key: tenant.personal_api_key, body: { version: 1 } })).status).toBe(200);
}

/** An environment's endpoint rows: endpoints, versions, kept rows, cached answers and the run log. */
const endpointRows = (id: number) =>
  count(
    `select (select count(*) from endpoints.endpoints where environment_id = $1) + (select count(*) from endpoints.endpoint_versions where environment_id = $1)
          + (select count(*) from endpoints.materialized_rows where environment_id = $1) + (select count(*) from endpoints.cached_results where environment_id = $1)
          + (select count(*) from endpoints.endpoint_runs where environment_id = $1) as count`,
    id,
  );

/** A batch export with a backfill and its finished run. */
async function withBatchExport(tenant: Tenant): Promise<void> {
  const path = `/api/environments/${tenant.environment_id}/batch_exports/`;
  const created = await api(stack.url, 'POST', path, {
    key: tenant.personal_api_key,
    body: { name: 'doomed', interval: 'day', destination: { type: 'HTTP', config: { url: 'http://127.0.0.1:9/batch/', token: 'unused' } } },
  });
  expect(created.status, created.text).toBe(201);
  const backfill = await api(stack.url, 'POST', `${path}${created.body.id}/backfills/`, { key: tenant.personal_api_key, body: { start_at: '2026-01-05T00:00:00Z', end_at: '2026-01-06T00:00:00Z' } });
  expect(backfill.status, backfill.text).toBe(201);
}

/** An environment's batch export rows: exports, runs and backfills. */
const batchExportRows = (id: number) =>
  count(
    `select (select count(*) from batch_exports.batch_exports where environment_id = $1) + (select count(*) from batch_exports.batch_export_runs where environment_id = $1)
          + (select count(*) from batch_exports.batch_export_backfills where environment_id = $1) as count`,
    id,
  );

async function withConfig(tenant: Tenant): Promise<void> {
  const created = await api(stack.url, 'POST', `/api/environments/${tenant.environment_id}/customer_profile_configs/`, { key: tenant.personal_api_key, body: { scope: 'person' } });
  expect(created.status).toBe(201);
}

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  db = new pg.Client({ connectionString: inject('databaseUrl') });
  await db.connect();
});
afterAll(async () => {
  await db?.end();
  await stack?.stop();
});

describe('DELETE a project', () => {
  it('answers 204, hides the project at once, and removes it and its data (events too) in the background', async () => {
    const tenant = await seedTenant(inject('databaseUrl'), 'delete');
    const bystander = await seedTenant(inject('databaseUrl'), 'bystander');
    expect((await postBatch(stack, { api_key: bystander.project_api_key, batch: [anEvent()] })).status).toBe(200);
    await withConfig(tenant);
    await withConversation(tenant);
    await withEndpoint(tenant);
    await withBatchExport(tenant);
    expect(await conversationRows(tenant.environment_id)).toBe(3);
    expect(await batchExportRows(tenant.environment_id)).toBe(3);
    // The endpoint, its two versions, the latest's one kept row, one cached answer and one logged run.
    expect(await endpointRows(tenant.environment_id)).toBe(6);
    const batch = [anEvent(), anEvent({ event: '$identify', properties: { $set: { a: 1 } } }), anEvent({ event: '$groupidentify', properties: { $group_type: 'company', $group_key: 'acme' } })];
    expect((await postBatch(stack, { api_key: tenant.project_api_key, historical_migration: true, batch })).status).toBe(200);
    await applyProfiles(stack);
    expect(await eventCount(inject('databaseUrl'), tenant.environment_id)).toBe(3);
    // A person, its distinct id and a group besides.
    expect(await ingestionRows(tenant.environment_id)).toBeGreaterThanOrEqual(6);
    const path = `/api/organizations/${tenant.organization_id}/projects/${tenant.project_id}/`;
    const deleted = await api(stack.url, 'DELETE', path, { key: tenant.personal_api_key });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect((await api(stack.url, 'GET', path, { key: tenant.personal_api_key })).status).toBe(404);
    expect((await api(stack.url, 'GET', `/api/organizations/${tenant.organization_id}/projects/`, { key: tenant.personal_api_key })).body.count).toBe(0);
    await stack.subgraphs.deletions!.drain();
    expect((await db.query('select finished_at, last_error from projects.deletion_jobs where project_id = $1', [tenant.project_id])).rows[0]).toMatchObject({ last_error: null });
    expect(await projectRows(tenant.project_id)).toBe(0);
    expect(await conversationRows(tenant.environment_id)).toBe(0);
    expect(await endpointRows(tenant.environment_id)).toBe(0);
    expect(await batchExportRows(tenant.environment_id)).toBe(0);
    expect(await environmentRows(tenant.project_id)).toBe(0);
    expect(await configRows(tenant.environment_id)).toBe(0);
    expect(await ingestionRows(tenant.environment_id)).toBe(0);
    expect(await eventCount(inject('databaseUrl'), bystander.environment_id)).toBe(1);
    // Its token sends nothing anywhere any more.
    expect((await postBatch(stack, { api_key: tenant.project_api_key, batch: [anEvent()] })).status).toBe(401);
  });

  it('is for admins with project:write; another organization gets 403 and nothing changes', async () => {
    const tenant = await seedTenant(inject('databaseUrl'), 'keep');
    const outsider = await seedTenant(inject('databaseUrl'), 'deleter');
    const member = await seedTenant(inject('databaseUrl'), 'deletemember');
    await addMember(inject('databaseUrl'), stack.url, member.personal_api_key, tenant.organization_id, 1);
    const path = `/api/organizations/${tenant.organization_id}/projects/${tenant.project_id}/`;
    expect((await api(stack.url, 'DELETE', path, { key: outsider.personal_api_key })).status).toBe(403);
    expect((await api(stack.url, 'DELETE', path, { key: member.personal_api_key })).status).toBe(403);
    expect((await api(stack.url, 'GET', path, { key: tenant.personal_api_key })).status).toBe(200);
    expect(await projectRows(tenant.project_id)).toBe(1);
  });

  it('finishes after a restart: a job left by a stopped worker is done by the next one', async () => {
    await stack.subgraphs.deletions!.stop();
    const tenant = await seedTenant(inject('databaseUrl'), 'restart');
    await withConfig(tenant);
    expect((await api(stack.url, 'DELETE', `/api/organizations/${tenant.organization_id}/projects/${tenant.project_id}/`, { key: tenant.personal_api_key })).status).toBe(204);
    expect(await count('select count(*) from projects.deletion_jobs where project_id = $1 and finished_at is null', tenant.project_id)).toBe(1);
    expect(await configRows(tenant.environment_id)).toBe(1);

    const [projects, profiles] = await Promise.all(['projects', 'customer-profiles'].map((name) => MikroORM.init(ormOptions(subgraphNamed(name), inject('databaseUrl'), 1))));
    const worker = startDeletionWorker(projects!, [{ definition: subgraphNamed('customer-profiles'), orm: profiles! }], createLogger('silent'));
    try {
      await worker.drain();
    } finally {
      await worker.stop();
      await Promise.all([projects!.close(), profiles!.close()]);
    }
    expect(await count('select count(*) from projects.deletion_jobs where project_id = $1 and finished_at is not null', tenant.project_id)).toBe(1);
    expect(await projectRows(tenant.project_id)).toBe(0);
    expect(await configRows(tenant.environment_id)).toBe(0);
  });
});
