import { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { QueryExecutor } from '../subgraphs/endpoints/queries/query.executor.js';
import { prepareQuery } from '../subgraphs/endpoints/queries/query.node.js';
import { compileQuery } from '../subgraphs/endpoints/queries/query.runner.js';
import { subgraphNamed } from '../subgraphs/index.js';
import { ormOptions } from '../subgraphs/shared/db/orm.js';
import { fairShare } from '../subgraphs/shared/subgraph/fair-slots.js';
import { setConfig } from '../subgraphs/shared/config.js';
import { createLogger } from '../subgraphs/shared/logger.js';
import { sql } from './kit/db.js';
import { createEndpoint, endpointsPath, hogql, ingest, runEndpoint, SEED_EVENTS } from './kit/endpoints.js';
import { api, gql } from './kit/http.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';
import { TEST_EVENTS_STORE } from './kit/events-store.js';

/** The cap on materialized endpoints in this suite: small, so that reaching it takes a few creates. */
const MAX_MATERIALIZED = 2;

let stack: Stack;
let attacker: Tenant;
const db = () => inject('databaseUrl');

beforeAll(async () => {
  stack = await startStack({ databaseUrl: db(), env: { ENDPOINT_MAX_MATERIALIZED: String(MAX_MATERIALIZED) } });
  attacker = await seedTenant(db(), 'limits');
  await ingest(stack, attacker, SEED_EVENTS);
});
afterAll(() => stack?.stop());

const call = (tenant: Tenant, method: string, rest: string, body?: unknown) => api(stack.url, method, endpointsPath(tenant, rest), { key: tenant.personal_api_key, body });

/** A megabyte a row, over a cross join of the events: far more than a result may hold. */
const ATTACK = hogql("select repeat(repeat('x', 1000), 1000) as s from events a, events b limit 120");

describe('a result past QUERY_MAX_RESULT_BYTES', () => {
  it('is a 400 result_too_large over REST and GraphQL, PostgreSQL stops, and the platform stays up', async () => {
    await createEndpoint(stack, attacker, { name: 'huge', query: ATTACK });
    await createEndpoint(stack, attacker, { name: 'small', query: hogql('select 1 + 1') });
    const rest = await runEndpoint(stack, attacker, 'huge', { refresh: 'force' });
    expect(rest.status, rest.text).toBe(400);
    expect(rest.body).toEqual({ type: 'validation_error', code: 'result_too_large', detail: expect.stringContaining('20 MiB (20971520 bytes)'), attr: 'query' });
    const graphql = await gql(stack.graphqlUrl, 'mutation($p: Int!) { run_endpoint(project_id: $p, name: "huge", refresh: "force") }', { p: attacker.environment_id }, attacker.personal_api_key);
    expect(graphql.errors?.[0]).toMatchObject({ message: rest.body.detail, extensions: { code: 'result_too_large', status: 400, attr: 'query' } });
    // Reading stopped, and PostgreSQL's work with it (the connection it wrote to is gone).
    await expect.poll(() => sql(db(), "select pid from pg_stat_activity where query like '%repeat(%' and pid <> pg_backend_pid()"), { timeout: 10_000 }).toHaveLength(0);
    expect((await api(stack.url, 'GET', '/healthz')).status).toBe(200);
    const next = await runEndpoint(stack, attacker, 'small');
    expect(next.status, next.text).toBe(200);
    // Its own answer: not what was read of the refused one (chDB's connection kept it once).
    expect(next.body.results).toEqual([[2]]);
  });

  it('fails the materialization of such a query, keeping nothing', async () => {
    const enabled = await call(attacker, 'PATCH', 'huge', { is_materialized: true });
    expect(enabled.status, enabled.text).toBe(200);
    await stack.subgraphs.workers.endpoints!.drain();
    const status = await call(attacker, 'GET', 'huge/materialization_status');
    expect(status.body).toMatchObject({ status: 'Failed', error: expect.stringContaining('Query result exceeds the limit of 20 MiB') });
    const kept = await sql(db(), 'select 1 from endpoints.materialized_rows where environment_id = $1', [attacker.environment_id]);
    expect(kept).toHaveLength(0);
    await call(attacker, 'PATCH', 'huge', { is_materialized: false });
  });
});

// ClickHouse's memory bound; PostgreSQL's queries are bounded by their time and result alone.
describe.skipIf(TEST_EVENTS_STORE !== 'clickhouse')('a query past QUERY_MAX_MEMORY_BYTES on ClickHouse', () => {
  const MEMORY = 16 * 1_048_576;
  // The setting is read at each query: this stack's, lowered for these cases alone.
  beforeAll(() => void setConfig({ ...stack.config, QUERY_MAX_MEMORY_BYTES: MEMORY }));
  afterAll(() => void setConfig(stack.config));

  it('is a 400 over REST and GraphQL, and the next run answers', async () => {
    // A 100 kB value for each of 12³ rows, gathered into one array: about 170 MB held at once.
    await createEndpoint(stack, attacker, { name: 'hoard', query: hogql("select length(groupArray(repeat('x', 100000))) as n from events a, events b, events c") });
    await createEndpoint(stack, attacker, { name: 'modest', query: hogql("select length(groupArray(repeat('x', 1000))) as n from events") });
    const rest = await runEndpoint(stack, attacker, 'hoard', { refresh: 'force' });
    expect(rest.status, rest.text).toBe(400);
    expect(rest.body).toEqual({ type: 'validation_error', code: 'query_failed', detail: expect.stringContaining('more memory than one query may use'), attr: 'query' });
    const graphql = await gql(stack.graphqlUrl, 'mutation($p: Int!) { run_endpoint(project_id: $p, name: "hoard", refresh: "force") }', { p: attacker.environment_id }, attacker.personal_api_key);
    expect(graphql.errors?.[0]).toMatchObject({ message: rest.body.detail, extensions: { status: 400, attr: 'query' } });
    const next = await runEndpoint(stack, attacker, 'modest', { refresh: 'force' });
    expect(next.status, next.text).toBe(200);
    expect(next.body.results).toEqual([[SEED_EVENTS.length]]);
  });
});

// PostgreSQL's executor on its own; ClickHouse's limits stop a query in the reader (subgraphs/shared/clickhouse/clickhouse.db.test.ts).
describe.skipIf(TEST_EVENTS_STORE === 'clickhouse')(`${QueryExecutor.name} limits`, () => {
  let orm: MikroORM;
  beforeAll(async () => {
    orm = await MikroORM.init(ormOptions(subgraphNamed('endpoints'), db(), 2));
  });
  afterAll(() => orm?.close());

  const compiled = async (text: string) => compileQuery(await prepareQuery(attacker.environment_id, hogql(text)), { variables: {} });
  const run = async (text: string, limits: { maxBytes?: number; partial?: boolean }) =>
    new QueryExecutor(orm.em.fork(), createLogger('silent')).run(attacker.environment_id, await compiled(text), undefined, limits);
  // Each row of a thousand characters is a little more on the wire (its length and the field's).
  const THOUSANDS = "select repeat('x', 1000) as s from events limit 10";

  it('answers whole rows up to maxBytes with truncated when partial', async () => {
    const read = await run(THOUSANDS, { maxBytes: 3_500, partial: true });
    expect(read).toMatchObject({ truncated: true, hasMore: true });
    expect(read.rows).toHaveLength(3);
    expect(read.rows.every(([value]) => value === 'x'.repeat(1000))).toBe(true);
    const whole = await run(THOUSANDS, { maxBytes: 20_000, partial: true });
    // The one row past the query's LIMIT says more exist.
    expect(whole).toMatchObject({ truncated: false, hasMore: true });
    expect(whole.rows).toHaveLength(10);
  });

  it('refuses the same result without partial, and a single row past maxBytes even with it', async () => {
    await expect(run(THOUSANDS, { maxBytes: 3_500 })).rejects.toMatchObject({ extensions: { code: 'result_too_large', status: 400 } });
    await expect(run(THOUSANDS, { maxBytes: 500, partial: true })).rejects.toMatchObject({ extensions: { code: 'result_too_large' } });
    // Five megabytes in one value: stopped while it arrives, before the row is whole.
    await expect(run("select repeat(repeat(repeat('y', 1000), 1000), 5) as s", { maxBytes: 1_048_576, partial: true })).rejects.toMatchObject({ message: expect.stringContaining('1 MiB (1048576 bytes)') });
    // The connection dropped goes; the next query gets a working one.
    expect((await run('select 40 + 2', {})).rows).toEqual([[42]]);
  });
});

// Watched through pg_stat_activity: PostgreSQL's. Both executors take the same slots (querySlots).
describe.skipIf(TEST_EVENTS_STORE === 'clickhouse')('query slots between environments', () => {
  it("answers one environment's trivial run while another's slow queries hold their share and queue", async () => {
    const busy = await seedTenant(db(), 'busy');
    const quiet = await seedTenant(db(), 'quiet');
    await ingest(stack, busy, SEED_EVENTS);
    // 13^11 rows to count: it runs until cancelled below; its eleventh table finds it in pg_stat_activity.
    const joins = Array.from({ length: 10 }, (_, index) => `cross join events e${index}`).join(' ');
    await createEndpoint(stack, busy, { name: 'slow', query: hogql(`select count() from events ${joins}`) });
    await createEndpoint(stack, quiet, { name: 'trivial', query: hogql('select 1 + 1') });
    const slots = stack.config.QUERY_SLOTS;
    const running = () => sql<{ pid: number }>(db(), `select pid from pg_stat_activity where backend_type = 'client backend' and query like '%"_t11"%' and pid <> pg_backend_pid()`);
    let settled = 0;
    const slow = Array.from({ length: slots }, () => runEndpoint(stack, busy, 'slow', { refresh: 'force' }).finally(() => settled++));
    await expect.poll(async () => (await running()).length, { timeout: 30_000 }).toBe(fairShare(slots));

    const trivial = await runEndpoint(stack, quiet, 'trivial');
    expect(trivial.status, trivial.text).toBe(200);
    expect(trivial.body.results).toEqual([[2]]);
    // Answered while every slow run still runs or waits, and the busy environment never held more than its share.
    expect(settled).toBe(0);
    expect((await running()).length).toBe(fairShare(slots));

    // The waiting ones are served in turn as the running ones end.
    const cancelling = setInterval(() => void sql(db(), `select pg_cancel_backend(pid) from pg_stat_activity where query like '%"_t11"%' and pid <> pg_backend_pid()`), 200);
    try {
      const answers = await Promise.all(slow);
      expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 400));
    } finally {
      clearInterval(cancelling);
    }
  });
});

describe('ENDPOINT_MAX_MATERIALIZED', () => {
  const COUNT = hogql('select count() from events');

  it('refuses to materialize past the cap over REST and GraphQL; a create past it is kept, not materialized', async () => {
    const owner = await seedTenant(db(), 'capped');
    for (const name of ['first', 'second']) expect((await createEndpoint(stack, owner, { name, query: COUNT, is_materialized: true })).is_materialized).toBe(true);
    const third = await createEndpoint(stack, owner, { name: 'third', query: COUNT, is_materialized: true });
    const reason = `This environment already has ${MAX_MATERIALIZED} materialized endpoints, the most it may have: disable materialization on another endpoint first.`;
    expect(third).toMatchObject({ is_materialized: false, materialization: { status: null, can_materialize: false, reason } });

    const refused = await call(owner, 'PATCH', 'third', { is_materialized: true, description: 'not kept either' });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail: `Cannot materialize endpoint: ${reason}`, attr: 'is_materialized' });
    const graphql = await gql(stack.graphqlUrl, 'mutation($p: Int!) { update_endpoint(project_id: $p, name: "third", is_materialized: true) { name } }', { p: owner.environment_id }, owner.personal_api_key);
    expect(graphql.errors?.[0]).toMatchObject({ message: refused.body.detail, extensions: { code: 'invalid_input', status: 400, attr: 'is_materialized' } });
    expect((await call(owner, 'GET', 'third')).body).toMatchObject({ description: '', is_materialized: false });

    // Changing what is already materialized is no new one; freeing one makes room.
    expect((await call(owner, 'PATCH', 'first', { sync_frequency: '1hour' })).status).toBe(200);
    expect((await call(owner, 'PATCH', 'second', { is_materialized: false })).status).toBe(200);
    expect((await call(owner, 'GET', 'third/materialization_status')).body).toMatchObject({ can_materialize: true, reason: null });
    const enabled = await call(owner, 'PATCH', 'third', { is_materialized: true });
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body.is_materialized).toBe(true);
  });

  it("counts per environment: another organization's materialized endpoints leave mine alone", async () => {
    const [mine, theirs] = [await seedTenant(db(), 'cap-mine'), await seedTenant(db(), 'cap-theirs')];
    for (const name of ['a', 'b']) await createEndpoint(stack, theirs, { name, query: COUNT, is_materialized: true });
    for (const name of ['a', 'b']) expect((await createEndpoint(stack, mine, { name, query: COUNT, is_materialized: true })).is_materialized).toBe(true);
    const theirThird = await createEndpoint(stack, theirs, { name: 'c', query: COUNT, is_materialized: true });
    expect(theirThird.is_materialized).toBe(false);
  });
});
