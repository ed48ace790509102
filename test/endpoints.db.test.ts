import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import createClient from 'openapi-fetch';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { MikroORM } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { cleanUpRunData } from '../subgraphs/endpoints/runs/run-data.cleanup.js';
import { subgraphNamed } from '../subgraphs/index.js';
import { ormOptions } from '../subgraphs/shared/db/orm.js';
import { TEST_EVENTS_STORE } from './kit/events-store.js';
import { sql } from './kit/db.js';
import { createEndpoint, endpointsPath, hogql, ingest, runEndpoint, SEED_EVENTS } from './kit/endpoints.js';
import { api, gql } from './kit/http.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';
import { collect, wsClient } from './kit/ws.js';

let stack: Stack;
let owner: Tenant;

beforeAll(async () => {
  // A short query timeout, so that a query that runs too long is stopped within the test.
  stack = await startStack({ databaseUrl: inject('databaseUrl'), env: { ENDPOINT_QUERY_TIMEOUT_SECONDS: '2' } });
  owner = await seedTenant(inject('databaseUrl'), 'endpoints');
  await ingest(stack, owner, SEED_EVENTS);
});
afterAll(() => stack?.stop());

const key = () => owner.personal_api_key;
const call = (method: string, rest: string, body?: unknown, prefix: 'environments' | 'projects' = 'environments') =>
  api(stack.url, method, endpointsPath(owner, rest, prefix), { key: key(), body });
const PAGEVIEWS = hogql("select count() from events where event = '$pageview'");

describe('saved endpoints: records', () => {
  it("creates one (version 1) and answers PostHog's record under both prefixes", async () => {
    const created = await createEndpoint(stack, owner, { name: 'pageviews', description: 'All page views', query: PAGEVIEWS, cache_age_seconds: 600 });
    expect(created).toMatchObject({
      name: 'pageviews',
      description: 'All page views',
      query: PAGEVIEWS,
      is_active: true,
      cache_age_seconds: 600,
      endpoint_path: `/api/environments/${owner.environment_id}/endpoints/pageviews/run`,
      current_version: 1,
      versions_count: 1,
      is_materialized: false,
      derived_from_insight: null,
      last_executed_at: null,
      materialization: { can_materialize: true, status: null },
    });
    expect(created.created_by).toMatchObject({ email: owner.email });
    expect(created.url).toBe(`${stack.url}${created.endpoint_path}`);
    const viaProjects = await call('GET', 'pageviews', undefined, 'projects');
    expect(viaProjects.status).toBe(200);
    expect(viaProjects.body).toEqual((await call('GET', 'pageviews')).body);
    const list = await call('GET', '');
    expect(list.status).toBe(200);
    expect(list.body.results.map((item: { name: string }) => item.name)).toContain('pageviews');
    // A null is a value these fields do not take, not "no change": refused, nothing changed.
    for (const field of ['description', 'is_active']) {
      const nulled = await call('PATCH', 'pageviews', { [field]: null });
      expect(nulled.status, field).toBe(400);
      expect(nulled.body).toMatchObject({ code: 'null', attr: field });
    }
    expect((await call('GET', 'pageviews')).body).toMatchObject({ description: 'All page views', is_active: true });
    expect(list.body).not.toHaveProperty('count');
  });

  it('filters the list by is_active', async () => {
    await createEndpoint(stack, owner, { name: 'dormant', query: PAGEVIEWS, is_active: false });
    const active = await api(stack.url, 'GET', `${endpointsPath(owner)}?is_active=true`, { key: key() });
    const names = active.body.results.map((item: { name: string }) => item.name);
    expect(names).not.toContain('dormant');
    const inactive = await api(stack.url, 'GET', `${endpointsPath(owner)}?is_active=false`, { key: key() });
    expect(inactive.body.results.map((item: { name: string }) => item.name)).toEqual(['dormant']);
  });

  it.each([
    [{ query: PAGEVIEWS }, 'Endpoint must have a name.', 'name'],
    [{ name: '1starts-with-digit', query: PAGEVIEWS }, 'Endpoint name must start with a letter', 'name'],
    [{ name: 'has space', query: PAGEVIEWS }, 'Endpoint name must start with a letter', 'name'],
    [{ name: `a${'b'.repeat(128)}`, query: PAGEVIEWS }, 'between 1 and 128 characters', 'name'],
    [{ name: 'no_query' }, 'Must specify query', 'query'],
    [{ name: 'bad_kind', query: { kind: 'EventsQuery' } }, 'Invalid query kind EventsQuery', 'query'],
    [{ name: 'funnel', query: { kind: 'FunnelsQuery', series: [] } }, 'FunnelsQuery', 'query'],
    [{ name: 'syntax', query: hogql('select count( from events') }, 'Invalid HogQL query', 'query'],
    [{ name: 'unknown_fn', query: hogql('select frobnicate(event) from events') }, 'frobnicate', 'query'],
    [{ name: 'short_cache', query: PAGEVIEWS, cache_age_seconds: 10 }, 'Cache age must be between 300 and 86400 seconds.', 'cache_age_seconds'],
    [{ name: 'long_cache', query: PAGEVIEWS, cache_age_seconds: 86_401 }, 'Cache age must be between 300 and 86400 seconds.', 'cache_age_seconds'],
    [{ name: 'bad_sync', query: PAGEVIEWS, is_materialized: true, sync_frequency: '2min' }, "Invalid sync_frequency '2min'", 'sync_frequency'],
  ])('refuses %j with 400 and stores nothing', async (body, detail, attr) => {
    const before = (await call('GET', '')).body.results.length;
    const response = await call('POST', '', body);
    expect(response.status, response.text).toBe(400);
    expect(response.body).toMatchObject({ type: 'validation_error', attr });
    expect(response.body.detail).toContain(detail);
    expect((await call('GET', '')).body.results.length).toBe(before);
  });

  it('names the position of a HogQL syntax error', async () => {
    const response = await call('POST', '', { name: 'positioned', query: hogql('select event,, from events') });
    expect(response.status).toBe(400);
    expect(response.body.detail).toMatch(/line 1, column \d+/);
  });

  it('refuses a second endpoint of the same name', async () => {
    await createEndpoint(stack, owner, { name: 'twice', query: PAGEVIEWS });
    const again = await call('POST', '', { name: 'twice', query: PAGEVIEWS });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ attr: 'name', code: 'unique' });
  });

  it('answers 404 for an unknown name on every path', async () => {
    for (const [method, rest] of [
      ['GET', 'nope'],
      ['PATCH', 'nope'],
      ['DELETE', 'nope'],
      ['GET', 'nope/run'],
      ['POST', 'nope/run'],
      ['GET', 'nope/versions'],
      ['GET', 'nope/versions/1'],
      ['GET', 'nope/openapi.json'],
      ['GET', 'nope/materialization_status'],
    ] as const) {
      const response = await call(method, rest, method === 'GET' || method === 'DELETE' ? undefined : {});
      expect(response.status, `${method} ${rest}`).toBe(404);
      expect(response.body).toMatchObject({ type: 'invalid_request', code: 'not_found' });
    }
  });

  it('deletes an endpoint with its versions (204), after which it is gone', async () => {
    await createEndpoint(stack, owner, { name: 'doomed', query: PAGEVIEWS });
    await call('PATCH', 'doomed', { query: hogql('select 1') });
    const deleted = await call('DELETE', 'doomed');
    expect(deleted.status).toBe(204);
    expect((await call('GET', 'doomed')).status).toBe(404);
    const [left] = await sql<{ n: string }>(inject('databaseUrl'), "select count(*) as n from endpoints.endpoint_versions v where not exists (select 1 from endpoints.endpoints e where e.id = v.endpoint_id)");
    expect(Number(left!.n)).toBe(0);
  });
});

describe('saved endpoints: versions', () => {
  it('makes a version when the query really changes, not for key order or metadata', async () => {
    await createEndpoint(stack, owner, { name: 'versioned', query: PAGEVIEWS, description: 'v1' });
    const reordered = await call('PATCH', 'versioned', { query: { query: PAGEVIEWS.query, kind: 'HogQLQuery' } });
    expect(reordered.body.current_version).toBe(1);
    const described = await call('PATCH', 'versioned', { description: 'still v1', cache_age_seconds: 900 });
    expect(described.body).toMatchObject({ current_version: 1, description: 'still v1', cache_age_seconds: 900 });
    const changed = await call('PATCH', 'versioned', { query: hogql("select count() from events where event = 'purchase'") });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ current_version: 2, versions_count: 2, description: 'still v1', cache_age_seconds: 900 });

    const versions = await call('GET', 'versioned/versions');
    expect(versions.status).toBe(200);
    expect(versions.body.map((version: { version: number }) => version.version)).toEqual([2, 1]);
    expect(versions.body[1]).toMatchObject({ version: 1, query: PAGEVIEWS, name: 'versioned', endpoint_is_active: true });
    expect(versions.body[0].query.query).toContain("'purchase'");
    const one = await call('GET', 'versioned/versions/1');
    expect(one.body).toMatchObject({ version: 1, query: PAGEVIEWS });
    const missing = await call('GET', 'versioned/versions/9');
    expect(missing.status).toBe(404);
    expect(missing.body.detail).toBe('Version 9 not found');
    expect((await call('GET', 'versioned/versions/x')).status).toBe(404);
  });

  it('runs the latest version, or the one asked for', async () => {
    const latest = await runEndpoint(stack, owner, 'versioned');
    expect(latest.body).toMatchObject({ results: [[2]], endpoint_version: 2 });
    const first = await runEndpoint(stack, owner, 'versioned', { version: 1 });
    expect(first.body).toMatchObject({ results: [[6]], endpoint_version: 1 });
    const unknown = await runEndpoint(stack, owner, 'versioned', { version: 7 });
    expect(unknown.status).toBe(404);
    expect(unknown.body.detail).toBe("Version 7 not found for endpoint 'versioned'");
  });

  it('refuses a query change aimed at an older version', async () => {
    const response = await api(stack.url, 'PATCH', `${endpointsPath(owner, 'versioned')}?version=1`, { key: key(), body: { query: hogql('select 2') } });
    expect(response.status).toBe(400);
    expect(response.body.attr).toBe('version');
  });

  it('applies description and is_active to the version asked for', async () => {
    const response = await call('PATCH', 'versioned', { version: 1, is_active: false, description: 'retired' });
    expect(response.status, response.text).toBe(200);
    expect((await call('GET', 'versioned/versions/1')).body).toMatchObject({ is_active: false, description: 'retired' });
    expect(response.body.description).toBe('still v1');
    const run = await runEndpoint(stack, owner, 'versioned', { version: 1 });
    expect(run.status).toBe(400);
    expect(run.body.attr).toBe('version');
  });
});

describe('saved endpoints: runs', () => {
  it("answers PostHog's query result, results first, debug keys only with debug", async () => {
    await createEndpoint(stack, owner, { name: 'browsers', query: hogql("select properties.$browser as browser, count() as views from events where event = '$pageview' group by browser order by browser") });
    const response = await runEndpoint(stack, owner, 'browsers');
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body)[0]).toBe('results');
    expect(response.body).toMatchObject({
      results: [['Chrome', 3], ['Firefox', 1], ['Safari', 2]],
      columns: ['browser', 'views'],
      hasMore: false,
      is_cached: false,
      endpoint_version: 1,
    });
    expect(response.body.types.map((type: string[]) => type[0])).toEqual(['browser', 'views']);
    for (const hidden of ['hogql', 'timings', 'cache_key', 'calculation_trigger', 'modifiers', 'resolved_date_range', 'explain']) expect(response.body).not.toHaveProperty(hidden);
    const debug = await runEndpoint(stack, owner, 'browsers', { debug: true, refresh: 'force' });
    // The SQL that ran: over PostgreSQL's query views, or ClickHouse's events filtered by the team.
    expect(debug.body.hogql).toContain(TEST_EVENTS_STORE === 'clickhouse' ? '.events WHERE team_id = {p1:Int64}' : 'hogql_events');
    expect(debug.body).toHaveProperty('timings');
  });

  it('serves the cache until refresh: force, and the GET form runs too', async () => {
    const cached = await runEndpoint(stack, owner, 'browsers');
    expect(cached.body.is_cached).toBe(true);
    const forced = await runEndpoint(stack, owner, 'browsers', { refresh: 'force' });
    expect(forced.body.is_cached).toBe(false);
    const viaGet = await call('GET', 'browsers/run');
    expect(viaGet.status, viaGet.text).toBe(200);
    expect(viaGet.body.results).toEqual([['Chrome', 3], ['Firefox', 1], ['Safari', 2]]);
    const viaProjects = await api(stack.url, 'POST', endpointsPath(owner, 'browsers/run', 'projects'), { key: key(), body: {} });
    expect(viaProjects.body.results).toHaveLength(3);
  });

  it('limits rows: min(limit, the query LIMIT), with hasMore', async () => {
    const limited = await runEndpoint(stack, owner, 'browsers', { limit: 2 });
    expect(limited.body).toMatchObject({ results: [['Chrome', 3], ['Firefox', 1]], hasMore: true, limit: 2 });
  });

  it.each([
    [{ query_override: { kind: 'HogQLQuery', query: 'select 1' } }, 'query_override is not allowed. Use variables instead.'],
    [{ limit: 0 }, 'Invalid limit parameter: 0'],
    [{ limit: -3 }, 'Invalid limit parameter: -3'],
    [{ refresh: 'direct' }, "'direct' refresh mode is only valid for materialized endpoints."],
    [{ refresh: 'sometimes' }, "Invalid refresh mode 'sometimes'"],
    [{ refresh: '__proto__' }, "Invalid refresh mode '__proto__'"],
    [{ refresh: 'constructor' }, "Invalid refresh mode 'constructor'"],
    [{ variables: { nope: 1 } }, 'Unknown variable(s): nope'],
    [{ filters_override: { date_from: '-7d' } }, 'filters_override is not supported for HogQLQuery endpoints'],
  ])('refuses a run with %j', async (body, detail) => {
    const response = await runEndpoint(stack, owner, 'browsers', body);
    expect(response.status, response.text).toBe(400);
    expect(response.body.detail).toContain(detail);
  });

  it('takes variables by code name, with defaults, and demands the ones without', async () => {
    await createEndpoint(stack, owner, {
      name: 'by_event',
      query: hogql('select count() from events where event = {variables.event_name} and distinct_id = {variables.who}', {
        a: { code_name: 'event_name', value: '$pageview' },
        b: { code_name: 'who' },
      }),
    });
    const missing = await runEndpoint(stack, owner, 'by_event');
    expect(missing.status).toBe(400);
    expect(missing.body.detail).toBe("Required variable 'who' not provided");
    expect((await runEndpoint(stack, owner, 'by_event', { variables: { who: 'u1' } })).body.results).toEqual([[3]]);
    expect((await runEndpoint(stack, owner, 'by_event', { variables: { who: 'u2', event_name: 'purchase' } })).body.results).toEqual([[1]]);
  });

  it("answers PostgreSQL's refusals of a query as 400s, never 500s", async () => {
    for (const [name, query] of [
      ['many_rows', 'select (select event from events)'],
      ['bad_join', 'select count() from events e full join persons p on e.timestamp < p.created_at'],
      ['divide', "select intDiv(1, 0)"],
    ] as const) {
      const created = await call('POST', '', { name, query: hogql(query) });
      if (created.status === 400) continue; // refused by the compiler: also fine
      const response = await runEndpoint(stack, owner, name, { refresh: 'force' });
      expect(response.status, `${query}: ${response.text}`).toBeLessThan(500);
      if (response.status !== 200) expect(response.body.detail).toMatch(/^Query execution failed: /);
    }
  });

  it('takes the GET form\'s limit as the run\'s own (400 for a bad one)', async () => {
    const zero = await api(stack.url, 'GET', `${endpointsPath(owner, 'browsers/run')}?limit=0`, { key: key() });
    expect(zero.status, zero.text).toBe(400);
    expect(zero.body.detail).toBe('Invalid limit parameter: 0');
    const two = await api(stack.url, 'GET', `${endpointsPath(owner, 'browsers/run')}?limit=2`, { key: key() });
    expect(two.body).toMatchObject({ limit: 2, hasMore: true });
    expect(two.body.results).toHaveLength(2);
  });

  it('does not run an inactive endpoint (404)', async () => {
    const response = await runEndpoint(stack, owner, 'dormant');
    expect(response.status).toBe(404);
  });

  it('stops a query that runs too long with a 400, never a 5xx', async () => {
    // 13^9 rows: minutes of work, stopped after ENDPOINT_QUERY_TIMEOUT_SECONDS.
    const joins = Array.from({ length: 8 }, (_, index) => `cross join events e${index}`).join(' ');
    await createEndpoint(stack, owner, { name: 'slow', query: hogql(`select count() from events ${joins}`) });
    const started = Date.now();
    const response = await runEndpoint(stack, owner, 'slow', { refresh: 'force' });
    expect(response.status, response.text).toBe(400);
    expect(response.body).toMatchObject({ type: 'validation_error', code: 'query_timeout', detail: 'Query execution failed: the query ran longer than 2 seconds and was stopped.' });
    expect(Date.now() - started).toBeLessThan(10_000);
    // The run log says so.
    const [logged] = await sql<{ error: string }>(inject('databaseUrl'), "select error from endpoints.endpoint_runs where endpoint_name = 'slow' and environment_id = $1", [owner.environment_id]);
    expect(logged!.error).toContain('longer than 2 seconds');
  });

  it('drops cached answers past the longest cache age and run records past seven months (the hourly clean-up)', async () => {
    const db = inject('databaseUrl');
    await sql(db, "update endpoints.cached_results set computed_at = now() - interval '2 days' where environment_id = $1", [owner.environment_id]);
    await sql(db, "insert into endpoints.endpoint_runs (environment_id, endpoint_name, version, by_personal_api_key, started_at, duration_ms, source) values ($1, 'browsers', 1, true, now() - interval '8 months', 1, 'live')", [owner.environment_id]);
    const orm = await MikroORM.init(ormOptions(subgraphNamed('endpoints'), db, 1));
    try {
      const dropped = await cleanUpRunData(orm.em.fork());
      expect(dropped.answers).toBeGreaterThan(0);
      expect(dropped.runs).toBeGreaterThanOrEqual(1);
    } finally {
      await orm.close();
    }
    const [left] = await sql<{ answers: number; old: number; recent: number }>(
      db,
      "select (select count(*)::int from endpoints.cached_results where environment_id = $1) as answers, (select count(*)::int from endpoints.endpoint_runs where environment_id = $1 and started_at < now() - interval '7 months') as old, (select count(*)::int from endpoints.endpoint_runs where environment_id = $1) as recent",
      [owner.environment_id],
    );
    expect(left).toMatchObject({ answers: 0, old: 0 });
    expect(left!.recent).toBeGreaterThan(0);
    const [scheduled] = await sql<{ cron: string }>(db, "select cron from job_queue.schedule where name = 'endpoint-run-data-cleanup'");
    expect(scheduled!.cron).toBe('17 * * * *');
  });

  it('logs runs by personal API key: last_executed_at and last_execution_times', async () => {
    await runEndpoint(stack, owner, 'browsers', { refresh: 'force' });
    const record = await call('GET', 'browsers');
    expect(record.body.last_executed_at).not.toBeNull();
    const times = await call('POST', 'last_execution_times', { names: ['browsers', 'never_ran'] });
    expect(times.status, times.text).toBe(200);
    expect(times.body.query_status).toMatchObject({ team_id: owner.environment_id, complete: true, error: false, query_async: false });
    const [[name, last], [other, none]] = times.body.query_status.results;
    expect([name, other, none]).toEqual(['browsers', 'never_ran', null]);
    expect(new Date(last).getTime()).toBeGreaterThan(Date.now() - 60_000);
    // The lookup's progress, in the numbers of the document's query_progress.
    const progress = times.body.query_status.query_progress;
    expect(progress).toEqual({ rows_read: expect.any(Number), bytes_read: expect.any(Number), estimated_rows_total: progress.rows_read, time_elapsed: expect.any(Number), active_cpu_time: expect.any(Number) });
    expect(progress.rows_read).toBeGreaterThan(0);
    expect(progress.bytes_read).toBeGreaterThan(0);
    const viaProjects = await api(stack.url, 'POST', endpointsPath(owner, 'last_execution_times', 'projects'), { key: key(), body: { names: ['browsers'] } });
    expect(viaProjects.status).toBe(200);
    const invalid = await call('POST', 'last_execution_times', { names: ['browsers', 'not valid!'] });
    expect(invalid.status).toBe(400);
    expect(invalid.body.attr).toBe('names__1');
  });
});

describe('saved endpoints: TrendsQuery', () => {
  const trends = {
    kind: 'TrendsQuery',
    series: [{ kind: 'EventsNode', event: '$pageview' }],
    interval: 'day',
    dateRange: { date_from: '2026-01-05', date_to: '2026-01-12' },
    breakdownFilter: { breakdown: '$browser', breakdown_type: 'event' },
  };

  it('counts events by interval and breakdown, through the same compiler', async () => {
    await createEndpoint(stack, owner, { name: 'trend', query: trends });
    const response = await runEndpoint(stack, owner, 'trend');
    expect(response.status, response.text).toBe(200);
    // PostHog's series: one per breakdown value over every day of the range (Jan 5 to 12), 0 where none.
    const series = response.body.results as { breakdown_value: string; data: number[]; days: string[]; labels: string[]; count: number; label: string }[];
    const of = (browser: string) => series.find((item) => item.breakdown_value === browser)!;
    const days = ['05', '06', '07', '08', '09', '10', '11', '12'];
    expect(of('Chrome')).toMatchObject({
      label: '$pageview',
      count: 2,
      data: [2, 0, 0, 0, 0, 0, 0, 0],
      days: days.map((day) => `2026-01-${day}`),
      labels: days.map((day) => `${Number(day)}-Jan-2026`),
    });
    expect(of('Safari')).toMatchObject({ count: 2, data: [0, 1, 0, 0, 0, 0, 0, 1] });
    expect(of('Firefox')).toMatchObject({ count: 1, data: [1, 0, 0, 0, 0, 0, 0, 0] });
    expect(series.at(-1)!.breakdown_value).toBe('Firefox');
    const chromeOnly = await runEndpoint(stack, owner, 'trend', { variables: { $browser: 'Chrome' }, refresh: 'force' });
    expect(chromeOnly.body.results.map((item: { breakdown_value: string }) => item.breakdown_value)).toEqual(['Chrome']);
    const narrowed = await runEndpoint(stack, owner, 'trend', { filters_override: { date_from: '2026-01-06' }, refresh: 'force' });
    expect(narrowed.body.results.map((item: { count: number }) => item.count).sort()).toEqual([2]);
    const limited = await runEndpoint(stack, owner, 'trend', { limit: 5 });
    expect(limited.status).toBe(400);
    expect(limited.body.detail).toBe('Limit parameter is only supported for HogQLQuery, not TrendsQuery');
  });
});

describe('saved endpoints: openapi.json', () => {
  it('describes the run with its variables and result columns typed', async () => {
    await createEndpoint(stack, owner, {
      name: 'typed-doc',
      description: 'Views by browser',
      query: hogql('select properties.$browser as browser, count() as views, max(timestamp) as last_seen from events where event = {variables.event_name} group by browser', {
        a: { code_name: 'event_name', value: '$pageview' },
        b: { code_name: 'min_views', type: 'Number' },
      }),
    });
    const response = await call('GET', 'typed-doc/openapi.json');
    expect(response.status, response.text).toBe(200);
    const document = response.body;
    expect(document.openapi).toBe('3.0.3');
    // The site it is served from, as PostHog's document names it.
    expect(document.servers).toEqual([{ url: new URL(stack.url).origin }]);
    expect(document.info).toEqual({ title: 'typed-doc', description: 'Views by browser', version: '1' });
    const operation = document.paths[`/api/projects/${owner.environment_id}/endpoints/typed-doc/run`].post;
    expect(operation.operationId).toBe('run_typed_doc');
    expect(document.components.schemas.Variables).toMatchObject({
      additionalProperties: false,
      properties: { event_name: { type: 'string', example: '$pageview' }, min_views: { type: 'number' } },
      required: ['min_views'],
    });
    const columns = document.components.schemas.EndpointRunResponse['x-columns'];
    expect(columns.map((column: { name: string; type: string }) => [column.name, column.type])).toEqual([
      ['browser', 'String'],
      ['views', 'Integer'],
      ['last_seen', 'DateTime'],
    ]);
    expect(operation.requestBody.required).toBe(true);
  });

  it('is a valid OpenAPI document from which a typed client is generated and used', async () => {
    const document = (await call('GET', 'typed-doc/openapi.json')).body;
    await SwaggerParser.validate(structuredClone(document));
    const dir = mkdtempSync(join(process.cwd(), '.openapi-client-'));
    try {
      writeFileSync(join(dir, 'endpoint.ts'), astToString(await openapiTS(structuredClone(document))));
      const path = `/api/projects/${owner.environment_id}/endpoints/typed-doc/run`;
      const usage = (minViews: string) => `import createClient from 'openapi-fetch';
import type { paths } from './endpoint.js';
const client = createClient<paths>({ baseUrl: 'http://localhost' });
export async function run() {
  const { data } = await client.POST('${path}', { body: { variables: { min_views: ${minViews} } } });
  const columns: ('browser' | 'views' | 'last_seen')[] | undefined = data?.columns;
  return { columns, rows: data?.results };
}
`;
      const diagnostics = (source: string) => {
        writeFileSync(join(dir, 'usage.ts'), source);
        const program = ts.createProgram([join(dir, 'usage.ts')], { strict: true, noEmit: true, module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022, skipLibCheck: true });
        return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
      };
      expect(diagnostics(usage('3'))).toEqual([]);
      // The generated types know the variables: a string where a number goes does not compile.
      expect(diagnostics(usage("'three'")).join(' ')).toMatch(/not assignable to type 'number'/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // The same client, called for real: the document's paths and servers compose the real URL.
    const client = createClient<any>({ baseUrl: stack.url, headers: { authorization: `Bearer ${key()}` } });
    const { data, response } = await client.POST(`/api/projects/${owner.environment_id}/endpoints/typed-doc/run`, { body: { variables: { min_views: 3 } } });
    expect(response.status).toBe(200);
    expect(data.columns).toEqual(['browser', 'views', 'last_seen']);
  });
});

describe('saved endpoints: materialization', () => {
  const drain = () => stack.subgraphs.workers.endpoints!.drain();

  it('keeps the result materialized, runs read it, and pushes each status change', async () => {
    await createEndpoint(stack, owner, { name: 'kept', query: PAGEVIEWS });
    const client = wsClient(stack.wsUrl, key());
    const events = collect(client, 'subscription($p: Int!, $n: String!) { endpoint_materialization_status(project_id: $p, name: $n) { sequence name version exists materialization { status last_materialized_at error sync_frequency } } }', {
      p: owner.environment_id,
      n: 'kept',
    });
    // The first status is pushed when the subscription is live; one that starts later sees the later ones.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const enabled = await call('PATCH', 'kept', { is_materialized: true, sync_frequency: '1hour' });
    expect(enabled.status, enabled.text).toBe(200);
    expect(enabled.body.materialization).toMatchObject({ status: 'Running', sync_frequency: '1hour', can_materialize: true });
    await drain();
    const status = await call('GET', 'kept/materialization_status');
    expect(status.body).toMatchObject({ status: 'Completed', sync_frequency: '1hour', error: null });
    expect(status.body.last_materialized_at).not.toBeNull();
    // The next refresh waits on the job queue, due a sync interval after this one.
    const [next] = await sql<{ start_after: Date }>(
      inject('databaseUrl'),
      "select start_after from job_queue.job where name = 'endpoint-materialization-refresh' and state = 'created' and data->>'versionId' = (select v.id::text from endpoints.endpoint_versions v join endpoints.endpoints e on e.id = v.endpoint_id where e.name = 'kept' and e.environment_id = $1)",
      [owner.environment_id],
    );
    expect(Math.abs(new Date(next!.start_after).getTime() - (new Date(status.body.last_materialized_at).getTime() + 3_600_000))).toBeLessThan(60_000);

    // New events do not reach the kept result until the next refresh; `direct` reads them live.
    await ingest(stack, owner, [{ event: '$pageview', distinct_id: 'u9', timestamp: '2026-01-20T10:00:00Z', properties: {} }]);
    const run = await runEndpoint(stack, owner, 'kept');
    expect(run.body).toMatchObject({ results: [[6]], endpoint_materialized: true });
    const direct = await runEndpoint(stack, owner, 'kept', { refresh: 'direct' });
    expect(direct.body).toMatchObject({ results: [[7]], endpoint_materialized: false });

    const statuses = () => events.results.map((event: any) => event.data.endpoint_materialization_status.materialization.status);
    await expect.poll(statuses).toContain('Completed');
    expect(['Running', 'Completed']).toEqual(expect.arrayContaining(statuses()));
    const seen = statuses().length;
    const disabled = await call('PATCH', 'kept', { is_materialized: false });
    expect(disabled.body).toMatchObject({ is_materialized: false, materialization: { status: null } });
    const [last] = (await events.next(seen + 1)).slice(seen);
    expect(last!.data.endpoint_materialization_status).toMatchObject({ name: 'kept', version: 1, exists: true, materialization: { status: null } });
    events.dispose();
    await client.dispose();
    const [rows] = await sql<{ n: string }>(inject('databaseUrl'), 'select count(*) as n from endpoints.materialized_rows r join endpoints.endpoint_versions v on v.id = r.version_id join endpoints.endpoints e on e.id = v.endpoint_id where e.name = $1', ['kept']);
    expect(Number(rows!.n)).toBe(0);
  });

  it("applies PostHog's materialization rules", async () => {
    await createEndpoint(stack, owner, { name: 'with_vars', query: hogql('select count() from events where event = {variables.e}', { a: { code_name: 'e', value: 'x' } }) });
    const refused = await call('PATCH', 'with_vars', { is_materialized: true });
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/^Cannot materialize endpoint: /);
    expect((await call('GET', 'with_vars')).body.materialization).toMatchObject({ can_materialize: false });
    const inactive = await call('PATCH', 'dormant', { is_materialized: true });
    expect(inactive.body.detail).toBe('Cannot enable materialization on inactive endpoint.');
    const frequencyOff = await call('PATCH', 'pageviews', { is_materialized: false, sync_frequency: '1hour' });
    expect(frequencyOff.body.detail).toBe('Cannot set sync_frequency when disabling materialization.');
  });

  it('keeps the current version materialized when an older version is edited', async () => {
    await createEndpoint(stack, owner, { name: 'two_kept', query: PAGEVIEWS });
    await call('PATCH', 'two_kept', { query: hogql('select count() from events'), is_materialized: true });
    await drain();
    expect((await call('GET', 'two_kept/materialization_status')).body.status).toBe('Completed');
    const edited = await api(stack.url, 'PATCH', `${endpointsPath(owner, 'two_kept')}?version=1`, { key: key(), body: { description: 'the first' } });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body).toMatchObject({ is_materialized: true, materialization: { status: 'Completed' } });
    const refused = await call('PATCH', 'two_kept', { version: 1, is_materialized: true });
    expect(refused.status).toBe(400);
    expect(refused.body.attr).toBe('version');
    expect((await runEndpoint(stack, owner, 'two_kept')).body).toMatchObject({ results: [[14]], endpoint_materialized: true });
  });

  it('deletes the materialized rows with the endpoint', async () => {
    await createEndpoint(stack, owner, { name: 'kept_then_gone', query: PAGEVIEWS, is_materialized: true });
    await drain();
    expect((await call('GET', 'kept_then_gone/materialization_status')).body.status).toBe('Completed');
    expect((await call('DELETE', 'kept_then_gone')).status).toBe(204);
    const orphans = await sql(inject('databaseUrl'), 'select 1 from endpoints.materialized_rows r where not exists (select 1 from endpoints.endpoint_versions v where v.id = r.version_id)');
    expect(orphans).toHaveLength(0);
  });
});

describe('saved endpoints over GraphQL', () => {
  it('serves the same operations with the same errors', async () => {
    const created = await gql(stack.graphqlUrl, 'mutation($p: Int!) { create_endpoint(project_id: $p, name: "gql_one", query: {kind: "HogQLQuery", query: "select 40 + 2"}) { name current_version } }', { p: owner.environment_id }, key());
    expect(created.errors).toBeUndefined();
    expect(created.data.create_endpoint).toEqual({ name: 'gql_one', current_version: 1 });
    const run = await gql(stack.graphqlUrl, 'mutation($p: Int!) { run_endpoint(project_id: $p, name: "gql_one") }', { p: owner.environment_id }, key());
    expect(run.data.run_endpoint.results).toEqual([[42]]);
    const bad = await gql(stack.graphqlUrl, 'mutation($p: Int!) { create_endpoint(project_id: $p, name: "gql_two", query: {kind: "HogQLQuery", query: "select pg_sleep(1)"}) { name } }', { p: owner.environment_id }, key());
    expect(bad.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_input', status: 400, attr: 'query' });
  });
});
