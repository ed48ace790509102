import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api } from './kit/http.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
let owner: Tenant;

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  owner = await seedTenant(inject('databaseUrl'), 'body-types');
});
afterAll(() => stack?.stop());

const patchMe = (body: unknown) => api(stack.url, 'PATCH', '/api/users/@me/', { key: owner.personal_api_key, body });
const patchProject = (body: unknown) => api(stack.url, 'PATCH', `/api/organizations/${owner.organization_id}/projects/${owner.project_id}/`, { key: owner.personal_api_key, body });

/** REST bodies are read as Django REST framework reads them, never silently mistyped. */
describe('REST body field types', () => {
  it('reads booleans as DRF does, and refuses what is no boolean with 400 on the field', async () => {
    expect((await patchMe({ anonymize_data: 'yes' })).body.anonymize_data).toBe(true);
    expect((await patchMe({ anonymize_data: 0 })).body.anonymize_data).toBe(false);
    expect((await patchMe({ anonymize_data: 'true' })).body.anonymize_data).toBe(true);
    const refused = await patchMe({ anonymize_data: 'maybe' });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'Must be a valid boolean.', attr: 'anonymize_data' });
    expect((await api(stack.url, 'GET', '/api/users/@me/', { key: owner.personal_api_key })).body.anonymize_data).toBe(true);
  });

  it('reads strings from numbers, integers from digit strings, and refuses objects and lists for scalars', async () => {
    expect((await patchMe({ first_name: 42 })).body.first_name).toBe('42');
    expect((await patchMe({ first_name: { a: 1 } })).body).toMatchObject({ attr: 'first_name', detail: 'Not a valid string.' });
    expect((await patchMe({ first_name: ['x'] })).body).toMatchObject({ attr: 'first_name', detail: 'Not a valid string.' });
    const week = await patchProject({ week_start_day: '1' });
    expect(week.status, week.text).toBe(200);
    expect(week.body.week_start_day).toBe(1);
    expect((await patchProject({ week_start_day: 'monday' })).body).toMatchObject({ attr: 'week_start_day', detail: 'A valid integer is required.' });
    expect((await patchProject({ week_start_day: 1.5 })).body).toMatchObject({ attr: 'week_start_day' });
  });

  it('reads numbers from decimal strings only, as Python\'s float() does, and refuses what is not finite', async () => {
    const create = (cache_age_seconds: unknown) => api(stack.url, 'POST', `/api/environments/${owner.environment_id}/endpoints/`, { key: owner.personal_api_key, body: { name: `float_${String(cache_age_seconds).replace(/\W/g, '_')}`, query: { kind: 'HogQLQuery', query: 'select 1' }, cache_age_seconds } });
    for (const refused of ['0x12C', '0b101', 'Infinity', 'nan', '1__000', '_1000', '\ufeff400', '']) {
      const answer = await create(refused);
      expect([answer.status, answer.body.attr, answer.body.detail], refused).toEqual([400, 'cache_age_seconds', 'A valid number is required.']);
    }
    const created = await create(' 3.6e2 ');
    expect(created.status, created.text).toBe(201);
    expect(created.body.cache_age_seconds).toBe(360);
    expect((await create('1_000')).body.cache_age_seconds).toBe(1000);
  });

  it('reads query-string booleans and integers the same way, with a 400 on the parameter', async () => {
    const listing = (query: string) => api(stack.url, 'GET', `/api/environments/${owner.environment_id}/endpoints/${query}`, { key: owner.personal_api_key });
    expect((await listing('?created_by=abc')).body).toEqual({ type: 'validation_error', code: 'invalid_input', detail: 'A valid integer is required.', attr: 'created_by' });
    expect((await listing('?created_by=2.5')).body).toMatchObject({ attr: 'created_by', detail: 'A valid integer is required.' });
    const mine = await listing('?created_by=1');
    expect(mine.status, mine.text).toBe(200);
    const run = (query: string) => api(stack.url, 'GET', `/api/environments/${owner.environment_id}/endpoints/missing/run/${query}`, { key: owner.personal_api_key });
    expect((await run('?debug=maybe')).body).toMatchObject({ attr: 'debug', detail: 'Must be a valid boolean.' });
    expect((await run('?limit=abc')).body).toMatchObject({ attr: 'limit', detail: 'A valid integer is required.' });
    // A boolean DRF reads as true reaches the operation as true: the missing endpoint is then the answer.
    expect((await run('?debug=yes')).status).toBe(404);
  });

  it('lets a path parameter win over a body field of the same name, whatever its type', async () => {
    const patched = await patchProject({ id: 'not a number', name: 'Renamed' });
    expect(patched.status, patched.text).toBe(200);
    expect(patched.body).toMatchObject({ id: owner.project_id, name: 'Renamed' });
  });
});
