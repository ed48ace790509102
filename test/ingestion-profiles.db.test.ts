import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { MikroORM } from '@mikro-orm/postgresql';
import { subgraphNamed } from '../subgraphs/index.js';
import { takeProfiles } from '../subgraphs/ingestion/profiles/profile.queue.js';
import { ormOptions } from '../subgraphs/shared/db/orm.js';
import { sql } from './kit/db.js';
import { api } from './kit/http.js';
import { anEvent, applyProfiles, daysAgo, postBatch } from './kit/ingest.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
});
afterAll(() => stack?.stop());

interface PersonRecord {
  id: string;
  distinct_ids: string[];
  properties: Record<string, unknown>;
  is_identified: boolean;
  created_at: string;
}

/** A tenant and a way to send it batches (each applied before the next) and read its persons. */
async function project() {
  const owner: Tenant = await seedTenant(inject('databaseUrl'), 'profiles');
  let minute = 0;
  return {
    owner,
    async send(...events: Record<string, unknown>[]) {
      const batch = events.map((event) => anEvent({ timestamp: daysAgo(10, -60_000 * minute++), ...event }));
      const response = await postBatch(stack, { api_key: owner.project_api_key, historical_migration: true, batch });
      expect(response.status).toBe(200);
      await applyProfiles(stack);
    },
    async persons(): Promise<PersonRecord[]> {
      const response = await api(stack.url, 'GET', `/api/environments/${owner.environment_id}/persons/`, { key: owner.personal_api_key });
      return (response.body.results as PersonRecord[]).sort((a, b) => a.distinct_ids[0]!.localeCompare(b.distinct_ids[0]!));
    },
    async groups() {
      const response = await api(stack.url, 'GET', `/api/environments/${owner.environment_id}/groups/?group_type_index=0`, { key: owner.personal_api_key });
      return response.body.results;
    },
  };
}

const identify = (distinctId: string, anonymous: string, properties: Record<string, unknown> = {}) =>
  ({ event: '$identify', distinct_id: distinctId, properties: { $anon_distinct_id: anonymous, ...properties } });

describe('persons', () => {
  it('gives every distinct id a person, dated by its earliest event, and applies $set, $set_once and $unset in order', async () => {
    const { send, persons } = await project();
    await send(
      { distinct_id: 'u', properties: { $set: { plan: 'free', email: 'a@x' }, $set_once: { first_page: '/' } } },
      { distinct_id: 'u', properties: { $set: { plan: 'pro' }, $set_once: { first_page: '/later' }, $unset: ['email'] } },
    );
    await send({ distinct_id: 'u', timestamp: daysAgo(30), $set: { via: 'top-level' } });
    const [person] = await persons();
    expect(person).toMatchObject({ distinct_ids: ['u'], properties: { plan: 'pro', first_page: '/', via: 'top-level' }, is_identified: false });
    expect(Date.parse(person!.created_at)).toBeLessThan(Date.now() - 29 * 86_400_000);
  });

  it('merges the anonymous person into the identified one at $identify, across batches', async () => {
    const { send, persons } = await project();
    await send({ distinct_id: 'anon', properties: { $set: { source: 'ad', plan: 'free' } } });
    await send({ distinct_id: 'user', properties: { $set: { plan: 'pro' } } });
    await send(identify('user', 'anon', { $set: { email: 'user@x' } }));
    expect(await persons()).toEqual([
      expect.objectContaining({ distinct_ids: ['anon', 'user'], properties: { source: 'ad', plan: 'pro', email: 'user@x' }, is_identified: true }),
    ]);
  });

  it('refuses to merge a person identified already, unless $merge_dangerously; $create_alias joins an id', async () => {
    const { send, persons } = await project();
    await send(identify('alice', 'a-anon'), identify('bob', 'b-anon'));
    await send(identify('alice', 'bob'));
    expect((await persons()).map((person) => person.distinct_ids)).toEqual([['a-anon', 'alice'], ['b-anon', 'bob']]);
    await send({ event: '$create_alias', distinct_id: 'alice', properties: { alias: 'alice@work' } });
    await send({ event: '$merge_dangerously', distinct_id: 'alice', properties: { alias: 'bob' } });
    expect((await persons()).map((person) => person.distinct_ids)).toEqual([['a-anon', 'alice', 'alice@work', 'b-anon', 'bob']]);
  });

  it('keeps events with $process_person_profile false away from persons, and never merges through placeholder ids', async () => {
    const { send, persons } = await project();
    await send({ distinct_id: 'ghost', properties: { $process_person_profile: false, $set: { x: 1 } } });
    await send(identify('real', 'undefined'));
    expect((await persons()).map((person) => person.distinct_ids)).toEqual([['real']]);
  });

  it('applies a retried batch once: its events are duplicates, so nothing is queued again', async () => {
    const { owner, persons } = await project();
    const batch = { api_key: owner.project_api_key, historical_migration: true, batch: [anEvent({ distinct_id: 'once', properties: { $set: { n: 1 } } })] };
    await postBatch(stack, batch);
    await postBatch(stack, batch);
    await applyProfiles(stack);
    const [{ count }] = await sql<{ count: string }>(inject('databaseUrl'), 'select count(*) from ingestion.profile_updates where environment_id = $1', [owner.environment_id]);
    expect(Number(count)).toBe(0);
    expect((await persons()).map((person) => person.properties)).toEqual([{ n: 1 }]);
  });

  it('follows its events within moments without being asked (the worker wakes on each batch)', async () => {
    const { owner } = await project();
    await postBatch(stack, { api_key: owner.project_api_key, batch: [anEvent({ distinct_id: 'soon' })] });
    await expect
      .poll(async () => (await api(stack.url, 'GET', `/api/environments/${owner.environment_id}/persons/`, { key: owner.personal_api_key })).body.count, { timeout: 5000 })
      .toBe(1);
  });
});

describe('the profile worker', () => {
  it('lets an environment whose queued changes cannot be applied wait, goes on with the others, and parks the row at fault', async () => {
    const broken = await project();
    const poison = [{ distinct_id: 'x', time: 0, person: null, group: { group_type_index: null, group_key: 'k', group_set: {} } }];
    await sql(inject('databaseUrl'), 'insert into ingestion.profile_updates (environment_id, updates, entries, created_at) values ($1, $2, 1, now())', [broken.owner.environment_id, JSON.stringify(poison)]);
    const healthy = await project();
    await healthy.send({ distinct_id: 'fine' });
    expect((await healthy.persons()).map((person) => person.distinct_ids)).toEqual([['fine']]);

    // The broken environment's next batch waits behind the bad row, which is tried alone until it is parked.
    await broken.send({ distinct_id: 'after' });
    for (let drain = 0; drain < 6 && (await broken.persons()).length === 0; drain++) await applyProfiles(stack);
    expect((await broken.persons()).map((person) => person.distinct_ids)).toEqual([['after']]);
    const rows = await sql<{ attempts: number; last_error: string }>(inject('databaseUrl'), 'select attempts, last_error from ingestion.profile_updates where environment_id = $1', [broken.owner.environment_id]);
    expect(rows).toEqual([{ attempts: 3, last_error: expect.stringContaining('null') }]);
  });

  it('takes queued batches up to a number of entries and of bytes, at least one, in the order they were queued', async () => {
    const { owner } = await project();
    const orm = await MikroORM.init(ormOptions(subgraphNamed('ingestion'), inject('databaseUrl'), 1));
    // Queued and read in one transaction that is never committed: the stack's own worker cannot take them first.
    const em = orm.em.fork();
    await em.begin();
    try {
      for (const entries of [15_000, 10_000, 1]) {
        await em.execute('insert into ingestion.profile_updates (environment_id, updates, entries, bytes, created_at) values (?, ?::jsonb, ?, ?, now())', [owner.environment_id, JSON.stringify([{ distinct_id: `n${entries}` }]), entries, entries * 100]);
      }
      const take = (entries: number, bytes = Infinity) => takeProfiles(em, owner.environment_id, { entries, bytes }).then((taken) => taken.entries.map((entry) => entry.distinct_id));
      expect(await take(20_000)).toEqual(['n15000']);
      expect(await take(25_000)).toEqual(['n15000', 'n10000']);
      expect(await take(100)).toEqual(['n15000']);
      expect(await take(100_000, 2_000_000)).toEqual(['n15000']);
      expect(await take(100_000, 2_500_100)).toEqual(['n15000', 'n10000', 'n1']);
    } finally {
      await em.rollback();
      await orm.close();
    }
  });
});

describe('groups', () => {
  it('creates a group at $groupidentify and merges later $group_set values over it (both event names)', async () => {
    const { send, groups, owner } = await project();
    await send({ event: '$groupidentify', properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme', seats: 5 } } });
    await send({ event: '$group_identify', properties: { $group_type: 'company', $group_key: 'acme', $group_set: { seats: 9 } } });
    expect(await groups()).toEqual([{ group_type_index: 0, group_key: 'acme', group_properties: { name: 'Acme', seats: 9 }, created_at: expect.any(String) }]);
    const project_ = await api(stack.url, 'GET', `/api/organizations/${owner.organization_id}/projects/${owner.project_id}/`, { key: owner.personal_api_key });
    expect(project_.body).toMatchObject({ has_group_types: true, group_types: [{ group_type: 'company', group_type_index: 0 }] });
  });

  it('maps a type named only in $groups, and shares group types between the environments of a project', async () => {
    const { send, owner } = await project();
    await send({ properties: { $groups: { team: 't1' } } });
    await send({ event: '$groupidentify', properties: { $group_type: 'company', $group_key: 'acme' } });
    const project_ = await api(stack.url, 'GET', `/api/organizations/${owner.organization_id}/projects/${owner.project_id}/`, { key: owner.personal_api_key });
    expect(project_.body.group_types.map((type: { group_type: string; group_type_index: number }) => [type.group_type, type.group_type_index])).toEqual([['team', 0], ['company', 1]]);
  });
});
