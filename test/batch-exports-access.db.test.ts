import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { backfill, createExport, exportsPath, runsOf, s3Destination, startS3, type S3Store } from './kit/batch-exports.js';
import { api, gql } from './kit/http.js';
import { createKey, seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
let store: S3Store;
let owner: Tenant;
let stranger: Tenant;
/** The owner's export, its finished run and the backfill that made it. */
let ids: { id: string; run_id: string; backfill_id: string };
/** An export of the stranger's own. */
let strangerExport: string;
/** Keys of the owner without the scope an operation needs: one for reads, one for writes (`write` implies `read`). */
let projectReader: string;
let exportReader: string;

const SECRET = 'secret-of-the-owner';
/** The S3 keys of the owner's destination: write-only. */
const S3_SECRET = 'S3RVER';
const UNKNOWN_KEY = 'phx_thisKeyDoesNotExist0000000000';
const PAST = { start_at: '2026-01-01T00:00:00Z', end_at: '2026-01-02T00:00:00Z' };
interface ErrorBody {
  type: string;
  code: string;
  detail: string;
  attr: string | null;
}
const NO_PROJECT: ErrorBody = { type: 'authentication_error', code: 'permission_denied', detail: "You don't have access to the project.", attr: null };
const NO_PERSONAL_KEY: ErrorBody = { type: 'authentication_error', code: 'permission_denied', detail: 'This action does not support Personal API Key access', attr: null };
const NOT_FOUND: ErrorBody = { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null };
const missingScope = (scope: string): ErrorBody => ({ type: 'authentication_error', code: 'permission_denied', detail: `API key missing required scope '${scope}'`, attr: null });

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  store = await startS3();
  [owner, stranger] = await Promise.all([seedTenant(inject('databaseUrl'), 'exports-owner'), seedTenant(inject('databaseUrl'), 'exports-stranger')]);
  const created = await createExport(stack, owner, { name: SECRET, interval: 'day', destination: s3Destination(store, { prefix: SECRET }) });
  const backfill_id = await backfill(stack, owner, created.id, '2026-01-05T00:00:00Z', '2026-01-06T00:00:00Z');
  const runs = await runsOf(stack, owner, created.id);
  expect(runs).toMatchObject([{ status: 'Completed', backfill: backfill_id }]);
  ids = { id: created.id, run_id: runs[0].id, backfill_id };
  strangerExport = (await createExport(stack, stranger, { name: 'own', destination: s3Destination(store, { prefix: 'stranger' }) })).id;
  projectReader = await createKey(stack.url, owner.personal_api_key, ['project:read']);
  exportReader = await createKey(stack.url, owner.personal_api_key, ['batch_export:read']);
});
afterAll(async () => {
  await stack?.stop();
  await store?.stop();
});

type Scope = 'batch_export:read' | 'batch_export:write' | 'INTERNAL';
interface Operation {
  method: string;
  /** The path after `batch_exports/`, with `:id`, `:run_id` and `:backfill_id` for the owner's. */
  rest: string;
  scope: Scope;
  /** A body that would change something, were it let through. */
  body?: () => Record<string, unknown>;
  /** The same operation over GraphQL ($p, $id, $run, $backfill, $d: the destination). */
  query: string;
}

const ARGS = 'project_id: $p, id: $id';
/** Every batch export operation, with the scope it needs. */
const OPERATIONS: Operation[] = [
  { method: 'GET', rest: '', scope: 'batch_export:read', query: 'query($p: Int!) { batch_exports(project_id: $p) { count results { id name } } }' },
  {
    method: 'POST', rest: '', scope: 'batch_export:write', body: () => ({ name: 'intruder', interval: 'day', destination: s3Destination(store) }),
    query: 'mutation($p: Int!, $d: JSON) { create_batch_export(project_id: $p, name: "intruder", interval: "day", destination: $d) { id name } }',
  },
  { method: 'GET', rest: ':id', scope: 'batch_export:read', query: `query($p: Int!, $id: String!) { batch_export(${ARGS}) { id name destination { config } } }` },
  { method: 'PATCH', rest: ':id', scope: 'batch_export:write', body: () => ({ name: 'changed', paused: true }), query: `mutation($p: Int!, $id: String!) { update_batch_export(${ARGS}, name: "changed", paused: true) { name } }` },
  { method: 'DELETE', rest: ':id', scope: 'batch_export:write', query: `mutation($p: Int!, $id: String!) { delete_batch_export(${ARGS}) }` },
  { method: 'POST', rest: ':id/pause', scope: 'batch_export:write', query: `mutation($p: Int!, $id: String!) { pause_batch_export(${ARGS}) { paused } }` },
  { method: 'POST', rest: ':id/unpause', scope: 'batch_export:write', body: () => ({ backfill: true }), query: `mutation($p: Int!, $id: String!) { unpause_batch_export(${ARGS}, backfill: true) { paused } }` },
  { method: 'GET', rest: ':id/runs', scope: 'batch_export:read', query: `query($p: Int!, $id: String!) { batch_export_runs(${ARGS}) { count results { id status } } }` },
  { method: 'GET', rest: ':id/runs/:run_id', scope: 'batch_export:read', query: `query($p: Int!, $id: String!, $run: String!) { batch_export_run(${ARGS}, run_id: $run) { id status } }` },
  { method: 'POST', rest: ':id/runs/:run_id/retry', scope: 'batch_export:write', query: `mutation($p: Int!, $id: String!, $run: String!) { retry_batch_export_run(${ARGS}, run_id: $run) { backfill_id } }` },
  { method: 'POST', rest: ':id/runs/:run_id/cancel', scope: 'batch_export:write', query: `mutation($p: Int!, $id: String!, $run: String!) { cancel_batch_export_run(${ARGS}, run_id: $run) { cancelled } }` },
  { method: 'GET', rest: ':id/backfills', scope: 'batch_export:read', query: `query($p: Int!, $id: String!) { batch_export_backfills(${ARGS}) { count results { id status } } }` },
  {
    method: 'POST', rest: ':id/backfills', scope: 'batch_export:write', body: () => PAST,
    query: `mutation($p: Int!, $id: String!) { create_batch_export_backfill(${ARGS}, start_at: "${PAST.start_at}", end_at: "${PAST.end_at}") { backfill_id } }`,
  },
  { method: 'GET', rest: ':id/backfills/:backfill_id', scope: 'batch_export:read', query: `query($p: Int!, $id: String!, $backfill: String!) { batch_export_backfill(${ARGS}, backfill_id: $backfill) { id status } }` },
  {
    method: 'POST', rest: ':id/backfills/:backfill_id/cancel', scope: 'batch_export:write',
    query: `mutation($p: Int!, $id: String!, $backfill: String!) { cancel_batch_export_backfill(${ARGS}, backfill_id: $backfill) { cancelled } }`,
  },
  { method: 'GET', rest: 'test?destination=S3', scope: 'INTERNAL', query: 'query($p: Int!) { batch_export_test(project_id: $p, destination: "S3") { steps { name } } }' },
  {
    method: 'POST', rest: 'run_test_step_new', scope: 'INTERNAL', body: () => ({ destination: s3Destination(store), step: 0 }),
    query: 'mutation($p: Int!, $d: JSON) { run_batch_export_test_step_new(project_id: $p, destination: $d, step: 0) { name result { status } } }',
  },
  { method: 'POST', rest: ':id/run_test_step', scope: 'INTERNAL', body: () => ({ step: 0 }), query: `mutation($p: Int!, $id: String!) { run_batch_export_test_step(${ARGS}, step: 0) { name result { status } } }` },
];
/** The operations on one export that a personal key may reach. */
const ON_AN_EXPORT = OPERATIONS.filter((operation) => operation.rest.startsWith(':id') && operation.scope !== 'INTERNAL');
const ON_A_RUN_OR_BACKFILL = ON_AN_EXPORT.filter((operation) => /:(run|backfill)_id/.test(operation.rest));
const fieldOf = (operation: Operation) => /\{\s*(\w+)/.exec(operation.query)![1]!;
/** Operations by their GraphQL field, for test names. */
const byField = (operations: Operation[]) => operations.map((operation) => [fieldOf(operation), operation] as const);

type Prefix = 'environments' | 'projects';
/** An operation over REST under `environment`, on the export `id` (the owner's by default). */
function call(operation: Operation, environment: Tenant, key: string | undefined, prefix: Prefix = 'environments', id = ids.id) {
  const [rest, search] = operation.rest.replace(':id', id).replace(':run_id', ids.run_id).replace(':backfill_id', ids.backfill_id).split('?');
  return api(stack.url, operation.method, `${exportsPath(environment, rest, prefix)}${search ? `?${search}` : ''}`, { key, body: operation.body?.() });
}
/** The same over GraphQL. */
function callGql(operation: Operation, environment: Tenant, key: string | undefined) {
  const all = { p: environment.environment_id, id: ids.id, run: ids.run_id, backfill: ids.backfill_id, d: s3Destination(store) };
  return gql(stack.graphqlUrl, operation.query, Object.fromEntries(Object.entries(all).filter(([name]) => operation.query.includes(`$${name}:`))), key);
}

/** What the owner has: the list, the record, its runs and backfills, and the files exported. */
async function ownerView() {
  const get = (rest: string) => api(stack.url, 'GET', exportsPath(owner, rest), { key: owner.personal_api_key }).then((response) => response.body);
  const [list, record, runs, backfills, files] = await Promise.all([get(''), get(ids.id), get(`${ids.id}/runs`), get(`${ids.id}/backfills`), store.keys()]);
  return { list, record, runs, backfills, files };
}

/** A key of the owner that has every scope but the one `operation` needs; for INTERNAL, the owner's `*` key. */
const limitedKey = ({ scope }: Operation) => ({ 'batch_export:read': projectReader, 'batch_export:write': exportReader, INTERNAL: owner.personal_api_key })[scope];
/** What a personal key without access to the operation is answered. */
const refusal = (operation: Operation, otherwise: ErrorBody) => (operation.scope === 'INTERNAL' ? NO_PERSONAL_KEY : otherwise);

describe.each(['environments', 'projects'] as const)('batch exports under /api/%s/', (prefix) => {
  it.each(OPERATIONS)("another organization's key reaches nothing: $method $rest", async (operation) => {
    const before = await ownerView();
    const response = await call(operation, owner, stranger.personal_api_key, prefix);
    expect(response.status, response.text).toBe(403);
    expect(response.body).toEqual(refusal(operation, NO_PROJECT));
    expect(response.text).not.toContain(SECRET);
    expect(response.text).not.toContain(S3_SECRET);
    expect(await ownerView()).toEqual(before);
  });

  it.each(ON_AN_EXPORT)("another organization's export under the stranger's own project is not found: $method $rest", async (operation) => {
    const before = await ownerView();
    const response = await call(operation, stranger, stranger.personal_api_key, prefix);
    expect(response.status, response.text).toBe(404);
    expect(response.body).toEqual(NOT_FOUND);
    expect(await ownerView()).toEqual(before);
  });

  it.each(ON_A_RUN_OR_BACKFILL)("another organization's run or backfill under the stranger's own export is not found: $method $rest", async (operation) => {
    const before = await ownerView();
    const response = await call(operation, stranger, stranger.personal_api_key, prefix, strangerExport);
    expect(response.status, response.text).toBe(404);
    expect(response.body).toEqual(NOT_FOUND);
    expect(await ownerView()).toEqual(before);
  });

  it.each(OPERATIONS)('a key without the scope is refused: $method $rest ($scope)', async (operation) => {
    const before = await ownerView();
    const response = await call(operation, owner, limitedKey(operation), prefix);
    expect(response.status, response.text).toBe(403);
    expect(response.body).toEqual(refusal(operation, missingScope(operation.scope)));
    expect(await ownerView()).toEqual(before);
  });

  it.each(OPERATIONS)('no key, or an unknown one, is 401: $method $rest', async (operation) => {
    const before = await ownerView();
    for (const [key, code] of [[undefined, 'not_authenticated'], [UNKNOWN_KEY, 'authentication_failed']] as const) {
      const response = await call(operation, owner, key, prefix);
      expect(response.status, response.text).toBe(401);
      expect(response.body).toMatchObject({ type: 'authentication_error', code });
    }
    expect(await ownerView()).toEqual(before);
  });
});

describe('the same refusals over GraphQL', () => {
  it.each(byField(OPERATIONS))("another organization's key sees nothing: %s", async (_field, operation) => {
    const before = await ownerView();
    const result = await callGql(operation, owner, stranger.personal_api_key);
    const expected = refusal(operation, NO_PROJECT);
    expect(result.data?.[fieldOf(operation)] ?? null).toBeNull();
    expect(result.errors?.[0]?.message).toBe(expected.detail);
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: expected.code, status: 403 });
    expect(JSON.stringify(result)).not.toContain(SECRET);
    expect(await ownerView()).toEqual(before);
  });

  it.each(byField(ON_AN_EXPORT))("another organization's export under the stranger's own project is not found: %s", async (_field, operation) => {
    const before = await ownerView();
    const result = await callGql(operation, stranger, stranger.personal_api_key);
    expect(result.data?.[fieldOf(operation)] ?? null).toBeNull();
    expect(result.errors?.[0]?.message).toBe(NOT_FOUND.detail);
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: NOT_FOUND.code, status: 404 });
    expect(await ownerView()).toEqual(before);
  });

  it.each(byField(OPERATIONS))('a key without the scope is refused: %s', async (_field, operation) => {
    const before = await ownerView();
    const result = await callGql(operation, owner, limitedKey(operation));
    const expected = refusal(operation, missingScope(operation.scope));
    expect(result.data?.[fieldOf(operation)] ?? null).toBeNull();
    expect(result.errors?.[0]?.message).toBe(expected.detail);
    expect(result.errors?.[0]?.extensions).toMatchObject({ code: expected.code, status: 403 });
    expect(await ownerView()).toEqual(before);
  });

  it.each(byField(OPERATIONS))('no key is not_authenticated, an unknown key 401: %s', async (_field, operation) => {
    const none = await callGql(operation, owner, undefined);
    expect(none.errors?.[0]?.extensions).toMatchObject({ code: 'not_authenticated', status: 401 });
    const unknown = await callGql(operation, owner, UNKNOWN_KEY);
    expect(unknown.status).toBe(401);
    expect(unknown.errors?.[0]?.extensions?.code).toBe('authentication_failed');
  });
});

const HTTP = { type: 'HTTP', config: { url: 'http://127.0.0.1:1/batch/', token: 'token' } };
/** A body the owner could create, with `change` over it (an undefined value drops the field). */
const createBody = (change: Record<string, unknown>) => () => JSON.parse(JSON.stringify({ name: 'bad', interval: 'day', destination: s3Destination(store), ...change })) as Record<string, unknown>;
/** A create body whose S3 config has `config` over the defaults. */
const s3With = (config: Record<string, unknown>) => () => ({ ...createBody({})(), destination: s3Destination(store, config) });
const INVALID: { name: string; method: 'POST' | 'PATCH'; body: () => Record<string, unknown>; code: string; attr: string }[] = [
  { name: 'no name', method: 'POST', body: createBody({ name: undefined }), code: 'required', attr: 'name' },
  { name: 'no interval', method: 'POST', body: createBody({ interval: undefined }), code: 'required', attr: 'interval' },
  { name: 'no destination', method: 'POST', body: createBody({ destination: undefined }), code: 'required', attr: 'destination' },
  { name: "interval 'fortnightly'", method: 'POST', body: createBody({ interval: 'fortnightly' }), code: 'invalid_choice', attr: 'interval' },
  { name: "model 'sessions'", method: 'POST', body: createBody({ model: 'sessions' }), code: 'invalid_input', attr: 'model' },
  { name: "model 'nonsense'", method: 'POST', body: createBody({ model: 'nonsense' }), code: 'invalid_choice', attr: 'model' },
  { name: 'offset_day on a daily interval', method: 'POST', body: createBody({ offset_day: 1 }), code: 'invalid_input', attr: 'offset_day' },
  { name: 'offset_hour 24', method: 'POST', body: createBody({ offset_hour: 24 }), code: 'max_value', attr: 'offset_hour' },
  { name: "timezone 'Mars/Olympus'", method: 'POST', body: createBody({ timezone: 'Mars/Olympus' }), code: 'invalid_choice', attr: 'timezone' },
  { name: "start_at 'yesterday'", method: 'POST', body: createBody({ start_at: 'yesterday' }), code: 'invalid_input', attr: 'start_at' },
  { name: 'start_at after end_at', method: 'POST', body: createBody({ start_at: '2027-02-01T00:00:00Z', end_at: '2027-01-01T00:00:00Z' }), code: 'invalid_input', attr: 'end_at' },
  { name: "destination type 'Snowflake'", method: 'POST', body: createBody({ destination: { type: 'Snowflake', config: {} } }), code: 'invalid_input', attr: 'destination__type' },
  { name: "destination type 'FTP'", method: 'POST', body: createBody({ destination: { type: 'FTP', config: {} } }), code: 'invalid_choice', attr: 'destination__type' },
  { name: 'an S3 config with an unknown field', method: 'POST', body: s3With({ colour: 'blue' }), code: 'invalid_input', attr: 'destination' },
  { name: 'an S3 config without bucket_name', method: 'POST', body: s3With({ bucket_name: undefined }), code: 'invalid_input', attr: 'destination' },
  { name: "compression 'zstd' with JSONLines", method: 'POST', body: s3With({ compression: 'zstd' }), code: 'invalid_input', attr: 'destination' },
  { name: "compression 'snappy' with JSONLines", method: 'POST', body: s3With({ compression: 'snappy' }), code: 'invalid_input', attr: 'destination' },
  { name: 'a hogql_query that aggregates', method: 'POST', body: createBody({ hogql_query: 'select count() from events group by event' }), code: 'invalid_input', attr: 'hogql_query' },
  { name: 'a hogql_query on persons', method: 'POST', body: createBody({ hogql_query: 'select x from persons' }), code: 'invalid_input', attr: 'hogql_query' },
  { name: 'a hogql_query with a union', method: 'POST', body: createBody({ hogql_query: 'select 1 union all select 2' }), code: 'invalid_input', attr: 'hogql_query' },
  { name: 'a hogql_query with a syntax error', method: 'POST', body: createBody({ hogql_query: 'select event from events where (' }), code: 'invalid_input', attr: 'hogql_query' },
  { name: "filters 'not a list'", method: 'POST', body: createBody({ filters: 'not a list' }), code: 'invalid_input', attr: 'filters' },
  { name: 'an HTTP destination of persons', method: 'POST', body: createBody({ model: 'persons', destination: HTTP }), code: 'invalid_input', attr: 'model' },
  { name: 'changing the destination type', method: 'PATCH', body: () => ({ destination: HTTP }), code: 'invalid_input', attr: 'destination__type' },
  { name: 'renaming and changing the destination type', method: 'PATCH', body: () => ({ name: 'renamed', paused: true, destination: HTTP }), code: 'invalid_input', attr: 'destination__type' },
  { name: "interval 'fortnightly'", method: 'PATCH', body: () => ({ interval: 'fortnightly' }), code: 'invalid_choice', attr: 'interval' },
  { name: 'renaming and offset_hour 24', method: 'PATCH', body: () => ({ name: 'renamed', offset_hour: 24 }), code: 'max_value', attr: 'offset_hour' },
  { name: 'a blank name', method: 'PATCH', body: () => ({ name: ' ' }), code: 'blank', attr: 'name' },
  { name: 'a hogql_query with a syntax error', method: 'PATCH', body: () => ({ hogql_query: 'select from where' }), code: 'invalid_input', attr: 'hogql_query' },
  { name: 'start_at after end_at', method: 'PATCH', body: () => ({ start_at: '2027-02-01T00:00:00Z', end_at: '2027-01-01T00:00:00Z' }), code: 'invalid_input', attr: 'end_at' },
  { name: 'emptying bucket_name', method: 'PATCH', body: () => ({ destination: { config: { bucket_name: null } } }), code: 'invalid_input', attr: 'destination' },
];

describe('bad input changes nothing', () => {
  it.each(INVALID)('$method: $name is 400 naming $attr', async ({ method, body, code, attr }) => {
    const before = await ownerView();
    const response = await api(stack.url, method, exportsPath(owner, method === 'PATCH' ? ids.id : ''), { key: owner.personal_api_key, body: body() });
    expect(response.status, response.text).toBe(400);
    expect(response.body).toMatchObject({ type: 'validation_error', code, detail: expect.any(String), attr });
    expect(Object.keys(response.body).sort()).toEqual(['attr', 'code', 'detail', 'type']);
    expect(response.text).not.toContain(S3_SECRET);
    expect(await ownerView()).toEqual(before);
  });

  it.each([
    { name: 'an end_at in the future', body: () => ({ start_at: '2026-01-01T00:00:00Z', end_at: new Date(Date.now() + 86_400_000).toISOString() }), attr: 'end_at' },
    { name: 'a start_at after its end_at', body: () => ({ start_at: '2026-01-03T00:00:00Z', end_at: '2026-01-02T00:00:00Z' }), attr: 'start_at' },
  ])('a backfill with $name is 400 and makes no backfill and no run', async ({ body, attr }) => {
    const before = await ownerView();
    const response = await api(stack.url, 'POST', exportsPath(owner, `${ids.id}/backfills`), { key: owner.personal_api_key, body: body() });
    expect(response.status, response.text).toBe(400);
    expect(response.body).toMatchObject({ type: 'validation_error', attr });
    expect(await ownerView()).toEqual(before);
  });
});

describe('keys with the scopes', () => {
  it('read and write what they should', async () => {
    const read = await api(stack.url, 'GET', exportsPath(owner, `${ids.id}/runs/${ids.run_id}`), { key: exportReader });
    expect(read.status, read.text).toBe(200);
    expect(read.body).toMatchObject({ id: ids.run_id, status: 'Completed' });
    const writer = await createKey(stack.url, owner.personal_api_key, ['batch_export:write']);
    const created = await createExport(stack, owner, { name: 'by the writer', destination: s3Destination(store) }, writer);
    const deleted = await api(stack.url, 'DELETE', exportsPath(owner, created.id), { key: writer });
    expect(deleted.status, deleted.text).toBe(204);
  });
});
