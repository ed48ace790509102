import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createScratchDatabase, dropDatabase } from '../subgraphs/shared/db/database.js';
import { backfill, createExport, drainExports, ingestedAsTheyHappened, postgresDestination, runsOf } from './kit/batch-exports.js';
import { sql } from './kit/db.js';
import { ingest, SEED_EVENTS } from './kit/endpoints.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
let owner: Tenant;
/** Another database of the same server: the destination. */
let destination: string;

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  owner = await seedTenant(inject('databaseUrl'), 'exports-postgres');
  destination = await createScratchDatabase(inject('databaseUrl'), 'export_destination');
  await ingest(stack, owner, SEED_EVENTS);
  await ingestedAsTheyHappened(inject('databaseUrl'), owner.environment_id);
});
afterAll(async () => {
  await stack?.stop();
  if (destination) await dropDatabase(destination);
});

const rows = <T extends Record<string, unknown> = Record<string, unknown>>(text: string, params: unknown[] = []) => sql<T>(destination, text, params);

describe('PostgreSQL destination: events', () => {
  it("makes PostHog's events table when absent and COPYs each run's events into it", async () => {
    const created = await createExport(stack, owner, { destination: postgresDestination(destination, { table_name: 'posthog_events' }) });
    await backfill(stack, owner, created.id, '2026-01-05T00:00:00Z', '2026-01-08T00:00:00Z');
    expect((await runsOf(stack, owner, created.id)).map((run) => [run.status, run.records_completed])).toEqual([
      ['Completed', 7],
      ['Completed', 2],
      ['Completed', 1],
    ]);
    const columns = await rows<{ column_name: string; data_type: string }>("select column_name, data_type from information_schema.columns where table_name = 'posthog_events' order by ordinal_position");
    expect(columns.map((column) => `${column.column_name} ${column.data_type}`)).toEqual([
      'uuid character varying',
      'event character varying',
      'properties jsonb',
      'elements jsonb',
      'set jsonb',
      'set_once jsonb',
      'distinct_id character varying',
      'team_id integer',
      'ip character varying',
      'site_url character varying',
      'timestamp timestamp with time zone',
    ]);
    const exported = await rows<Record<string, any>>('select * from posthog_events order by timestamp');
    expect(exported).toHaveLength(10);
    const identify = exported.find((row) => row.event === '$identify' && row.distinct_id === 'u1')!;
    expect(identify).toMatchObject({ team_id: owner.environment_id, set: { email: 'ada@example.com', plan: 'pro' }, set_once: null, ip: null, site_url: null, elements: '' });
    expect(identify.timestamp.toISOString()).toBe('2026-01-05T10:00:00.000Z');
    const purchase = exported.find((row) => row.event === 'purchase')!;
    expect(purchase.properties).toMatchObject({ amount: 99.5, currency: 'USD', paid: true });
  });

  it('delivers a run once even when its worker died after the destination committed it', async () => {
    const created = await createExport(stack, owner, { destination: postgresDestination(destination, { table_name: 'once' }) });
    await backfill(stack, owner, created.id, '2026-01-05T00:00:00Z', '2026-01-06T00:00:00Z');
    const [run] = await runsOf(stack, owner, created.id);
    expect(run).toMatchObject({ status: 'Completed', records_completed: 7 });
    // As if the worker had died between the destination's commit and its own record of it.
    await sql(inject('databaseUrl'), "update batch_exports.batch_export_runs set status = 'Running', heartbeat_at = now() - interval '1 hour', records_completed = null where id = $1", [run.id]);
    await sql(inject('databaseUrl'), "update batch_exports.batch_export_runs set last_updated_at = now() - interval '1 hour' where id = $1", [run.id]);
    await drainExports(stack, owner);
    const [again] = await runsOf(stack, owner, created.id);
    expect(again).toMatchObject({ status: 'Completed', records_completed: 7, attempts: 2 });
    expect((await rows<{ n: number }>('select count(*)::int as n from once'))[0]!.n).toBe(7);
    expect(await rows('select run_id::text, records from _analytics_batch_export_runs where run_id = $1', [run.id])).toEqual([{ run_id: run.id, records: '7' }]);
  });

  it('writes only the columns a table made beforehand has', async () => {
    await rows('create table narrow (uuid text, event text, distinct_id text)');
    const created = await createExport(stack, owner, { destination: postgresDestination(destination, { table_name: 'narrow' }) });
    await backfill(stack, owner, created.id, '2026-01-06T00:00:00Z', '2026-01-07T00:00:00Z');
    expect(await rows('select event, distinct_id from narrow order by event')).toEqual([
      { event: '$pageview', distinct_id: 'u3' },
      { event: 'signed_up', distinct_id: 'u2' },
    ]);
  });

  it("exports a hogql_query's columns into a table typed after them", async () => {
    const created = await createExport(stack, owner, {
      hogql_query: "SELECT event, properties.$browser AS browser, toFloat(properties.amount) AS amount, timestamp, person_properties.email AS email FROM events WHERE event != '$identify'",
      destination: postgresDestination(destination, { table_name: 'custom' }),
    });
    expect(created.schema.fields).toEqual([
      { expression: 'event', alias: 'event' },
      { expression: 'properties.$browser', alias: 'browser' },
      { expression: 'toFloat(properties.amount)', alias: 'amount' },
      { expression: 'timestamp', alias: 'timestamp' },
      { expression: 'person_properties.email', alias: 'email' },
    ]);
    await backfill(stack, owner, created.id, '2026-01-05T00:00:00Z', '2026-01-06T00:00:00Z');
    const columns = await rows<{ column_name: string; data_type: string }>("select column_name, data_type from information_schema.columns where table_name = 'custom' order by ordinal_position");
    expect(columns.map((column) => `${column.column_name} ${column.data_type}`)).toEqual(['event text', 'browser text', 'amount double precision', 'timestamp timestamp with time zone', 'email text']);
    const exported = await rows<Record<string, unknown>>('select event, browser, amount, email from custom order by timestamp');
    expect(exported.filter((row) => row.event === '$pageview')).toEqual([
      { event: '$pageview', browser: 'Chrome', amount: 10, email: 'ada@example.com' },
      { event: '$pageview', browser: 'Chrome', amount: 20, email: 'ada@example.com' },
      { event: '$pageview', browser: 'Firefox', amount: null, email: 'bob@example.com' },
    ]);
  });

  it('applies include_events, exclude_events and property filters', async () => {
    const included = await createExport(stack, owner, { destination: postgresDestination(destination, { table_name: 'included', include_events: ['$pageview', 'purchase'], exclude_events: ['purchase'] }) });
    const filtered = await createExport(stack, owner, {
      filters: [{ key: '$browser', operator: 'exact', type: 'event', value: ['Chrome'] }, { key: 'plan', operator: 'exact', type: 'person', value: 'pro' }],
      destination: postgresDestination(destination, { table_name: 'filtered' }),
    });
    for (const item of [included, filtered]) await backfill(stack, owner, item.id, '2026-01-05T00:00:00Z', '2026-02-05T00:00:00Z');
    expect((await rows<{ event: string }>('select distinct event from included')).map((row) => row.event)).toEqual(['$pageview']);
    expect((await rows<{ n: number }>('select count(*)::int as n from included'))[0]!.n).toBe(6);
    expect(await rows('select event, distinct_id from filtered order by timestamp')).toEqual([
      { event: '$pageview', distinct_id: 'u1' },
      { event: '$pageview', distinct_id: 'u1' },
      { event: 'purchase', distinct_id: 'u1' },
      { event: '$pageview', distinct_id: 'u1' },
    ]);
  });
});

describe('PostgreSQL destination: persons', () => {
  it('exports one row per distinct id and merges later changes by version instead of adding rows', async () => {
    const created = await createExport(stack, owner, { model: 'persons', destination: postgresDestination(destination, { table_name: 'persons' }) });
    await backfill(stack, owner, created.id, '2026-01-05T00:00:00Z', '2026-01-07T00:00:00Z');
    const first = await rows<Record<string, any>>('select * from persons order by distinct_id');
    expect(first.map((row) => [row.distinct_id, row.team_id, row.is_deleted])).toEqual([
      ['u1', owner.environment_id, false],
      ['u2', owner.environment_id, false],
      ['u3', owner.environment_id, false],
    ]);
    expect(first[0].properties).toMatchObject({ email: 'ada@example.com', plan: 'pro' });
    const constraint = await rows<{ columns: string }>("select string_agg(a.attname, ',' order by a.attnum) as columns from pg_index i join pg_attribute a on a.attrelid = i.indrelid and a.attnum = any(i.indkey) where i.indrelid = 'persons'::regclass and i.indisprimary");
    expect(constraint[0]!.columns).toBe('team_id,distinct_id');

    // u1 changes plan on February 10th.
    await ingest(stack, owner, [{ event: '$set', distinct_id: 'u1', timestamp: '2026-02-10T09:00:00Z', properties: { $set: { plan: 'enterprise' } } }]);
    await sql(inject('databaseUrl'), "update ingestion.persons set updated_at = '2026-02-10T09:00:01Z' where environment_id = $1 and updated_at > '2026-03-01'", [owner.environment_id]);
    await backfill(stack, owner, created.id, '2026-02-10T00:00:00Z', '2026-02-11T00:00:00Z');
    const second = await rows<Record<string, any>>('select * from persons order by distinct_id');
    expect(second).toHaveLength(3);
    expect(second[0]!.properties).toMatchObject({ email: 'ada@example.com', plan: 'enterprise' });
    expect(Number(second[0]!.person_version)).toBeGreaterThan(Number(first[0]!.person_version));
    // An older state exported again (a backfill of January) changes nothing.
    await backfill(stack, owner, created.id, '2026-01-05T00:00:00Z', '2026-01-06T00:00:00Z');
    expect((await rows<Record<string, any>>("select properties from persons where distinct_id = 'u1'"))[0]!.properties.plan).toBe('enterprise');
  });
});

describe('PostgreSQL destination failures', () => {
  it("fails at once, with the server's words, on a refused password or a missing schema", async () => {
    const url = new URL(destination);
    const refused = await createExport(stack, owner, { destination: postgresDestination(destination, { table_name: 'never', user: 'nobody-at-all', password: 'wrong' }) });
    const missing = await createExport(stack, owner, { destination: postgresDestination(destination, { table_name: 'never', schema: 'no_such_schema' }) });
    for (const item of [refused, missing]) await backfill(stack, owner, item.id, '2026-01-05T00:00:00Z', '2026-01-06T00:00:00Z');
    const [first] = await runsOf(stack, owner, refused.id);
    const [second] = await runsOf(stack, owner, missing.id);
    expect(url.hostname).toBe('127.0.0.1');
    expect(first).toMatchObject({ status: 'Failed', attempts: 1 });
    expect(first.latest_error).toMatch(/28000|28P01/);
    // The user is a secret field: the server's words repeat it, the run's error does not.
    expect(first.latest_error).not.toContain('nobody-at-all');
    expect(second).toMatchObject({ status: 'Failed', attempts: 1 });
    expect(second.latest_error).toMatch(/3F000.*no_such_schema/);
  });
});
