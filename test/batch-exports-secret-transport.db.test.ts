import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createExport, exportsPath } from './kit/batch-exports.js';
import { api, gql } from './kit/http.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
let owner: Tenant;

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  owner = await seedTenant(inject('databaseUrl'), 'secret-transport');
});
afterAll(async () => {
  await stack?.stop();
});

/** A Postgres destination that is never connected to: only what is stored is looked at. */
const stored = () =>
  createExport(stack, owner, {
    destination: { type: 'Postgres', config: { host: 'warehouse.example.com', database: 'analytics', user: 'loader', password: 'stored-password', table_name: 'events', sslmode: 'require' } },
  });

const get = async (id: string) => (await api(stack.url, 'GET', exportsPath(owner, id), { key: owner.personal_api_key })).body;
const patch = (id: string, config: Record<string, unknown>) =>
  api(stack.url, 'PATCH', exportsPath(owner, id), { key: owner.personal_api_key, body: { destination: { type: 'Postgres', config } } });

describe('changing how a Postgres destination sends its password', () => {
  for (const weaker of [{ sslmode: 'disable' }, { has_self_signed_cert: true }]) {
    it(`needs the secrets again for ${JSON.stringify(weaker)}, over REST and GraphQL, and changes nothing without them`, async () => {
      const item = await stored();
      const before = await get(item.id);
      const refused = await patch(item.id, weaker);
      expect(refused.status).toBe(400);
      expect(refused.body).toMatchObject({ type: 'validation_error', code: 'invalid_input', attr: 'destination' });
      expect(refused.body.detail).toContain(Object.keys(weaker)[0]);
      expect(refused.body.detail).toContain('user, password');
      const graphql = await gql(
        stack.graphqlUrl,
        'mutation($p: Int!, $id: String!, $d: JSON) { update_batch_export(project_id: $p, id: $id, destination: $d) { id } }',
        { p: owner.environment_id, id: item.id, d: { type: 'Postgres', config: weaker } },
        owner.personal_api_key,
      );
      expect(graphql.errors?.[0]).toMatchObject({ message: refused.body.detail, extensions: { code: 'invalid_input', attr: 'destination' } });
      expect(await get(item.id)).toEqual(before);
      const accepted = await patch(item.id, { ...weaker, user: 'loader', password: 'sent-again' });
      expect(accepted.status, accepted.text).toBe(200);
      expect(accepted.body.destination.config).toMatchObject(weaker);
    });
  }

  it('takes other changes, and the same values again, without the secrets', async () => {
    const item = await stored();
    expect((await patch(item.id, { sslmode: 'require', has_self_signed_cert: false, table_name: 'other' })).status).toBe(200);
  });
});
