import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { sql } from '../../../test/kit/db.js';
import { testChdbUrl } from '../../../test/kit/events-store.js';
import { anEvent, applyProfiles, daysAgo, postBatch } from '../../../test/kit/ingest.js';
import { freePort } from '../../../test/kit/process.js';
import { seedTenant } from '../../../test/kit/seed.js';
import { startStack, type Stack } from '../../../test/kit/stack.js';
import { ClickHouse } from '../../shared/clickhouse/clickhouse.js';
import { clickhouseFor, forgetClickHouse, registerClickHouse } from '../../shared/clickhouse/clickhouse.registry.js';
import type { ProfileEntry } from './profile-entry.js';

let stack: Stack;
let clickhouse: ClickHouse;
const databaseUrl = () => inject('databaseUrl');

beforeAll(async () => {
  stack = await startStack({ databaseUrl: databaseUrl(), env: { CLICKHOUSE_URL: testChdbUrl(`${new URL(databaseUrl()).pathname.slice(1)}_mirror`) } });
  clickhouse = clickhouseFor(databaseUrl())!;
});
afterAll(() => stack?.stop());

/** A tenant, and a way to send it batches, each applied (and mirrored) before the next. */
async function project() {
  const owner = await seedTenant(databaseUrl(), 'mirror');
  let minute = 0;
  return {
    environment_id: owner.environment_id,
    async send(...events: Record<string, unknown>[]) {
      const batch = events.map((event) => anEvent({ timestamp: daysAgo(10, -60_000 * minute++), ...event }));
      expect((await postBatch(stack, { api_key: owner.project_api_key, historical_migration: true, batch })).status).toBe(200);
      await applyProfiles(stack);
    },
  };
}

const identify = (distinctId: string, anonymous: string, properties: Record<string, unknown> = {}) => ({ event: '$identify', distinct_id: distinctId, properties: { $anon_distinct_id: anonymous, ...properties } });

/** An environment's persons, distinct ids and groups in one shape, whichever store answers. */
interface Profiles {
  persons: { uuid: string; properties: unknown; is_identified: boolean; version: number }[];
  distinct_ids: { distinct_id: string; person: string; version: number }[];
  groups: { group_type_index: number; group_key: string; group_properties: unknown }[];
}

type Row = Record<string, unknown>;

function profiles(persons: Row[], distinctIds: Row[], groups: Row[]): Profiles {
  return {
    persons: persons
      .map((row) => ({ uuid: String(row.uuid), properties: JSON.parse(String(row.properties)), is_identified: Boolean(Number(row.is_identified)), version: Number(row.version) }))
      .sort((a, b) => a.uuid.localeCompare(b.uuid)),
    distinct_ids: distinctIds.map((row) => ({ distinct_id: String(row.distinct_id), person: String(row.person), version: Number(row.version) })).sort((a, b) => a.distinct_id.localeCompare(b.distinct_id)),
    groups: groups
      .map((row) => ({ group_type_index: Number(row.group_type_index), group_key: String(row.group_key), group_properties: JSON.parse(String(row.group_properties)) }))
      .sort((a, b) => a.group_key.localeCompare(b.group_key)),
  };
}

/** What PostgreSQL, the source of truth, holds of the environment. */
async function inPostgres(environmentId: number): Promise<Profiles> {
  const url = databaseUrl();
  return profiles(
    await sql(url, 'select uuid::text as uuid, properties::text as properties, is_identified::int as is_identified, version from ingestion.persons where environment_id = $1', [environmentId]),
    await sql(
      url,
      'select d.distinct_id, p.uuid::text as person, d.version from ingestion.person_distinct_ids d join ingestion.persons p on p.id = d.person_id where d.environment_id = $1',
      [environmentId],
    ),
    await sql(url, 'select group_type_index, group_key, group_properties::text as group_properties from ingestion.groups where environment_id = $1', [environmentId]),
  );
}

/** What ClickHouse's mirror tables hold of it once collapsed by version (FINAL), deleted persons aside. */
async function inClickHouse(environmentId: number): Promise<Profiles> {
  const db = clickhouse.database;
  const team = { team: environmentId };
  return profiles(
    await clickhouse.query(`SELECT toString(id) AS uuid, properties, is_identified, version FROM ${db}.person FINAL WHERE team_id = {team:Int64} AND is_deleted = 0`, team),
    await clickhouse.query(`SELECT distinct_id, toString(person_id) AS person, version FROM ${db}.person_distinct_id2 FINAL WHERE team_id = {team:Int64} AND is_deleted = 0`, team),
    await clickhouse.query(`SELECT group_type_index, group_key, group_properties FROM ${db}.groups FINAL WHERE team_id = {team:Int64}`, team),
  );
}

async function deletedInClickHouse(environmentId: number): Promise<string[]> {
  const rows = await clickhouse.query<{ uuid: string }>(`SELECT toString(id) AS uuid FROM ${clickhouse.database}.person FINAL WHERE team_id = {team:Int64} AND is_deleted = 1 ORDER BY uuid`, { team: environmentId });
  return rows.map((row) => row.uuid);
}

async function uuidsInPostgres(environmentId: number): Promise<string[]> {
  const rows = await sql<{ uuid: string }>(databaseUrl(), 'select uuid::text as uuid from ingestion.persons where environment_id = $1 order by uuid', [environmentId]);
  return rows.map((row) => row.uuid);
}

async function pendingMirrors(environmentId: number): Promise<number> {
  const [row] = await sql<{ n: string }>(databaseUrl(), 'select count(*) as n from ingestion.profile_updates where environment_id = $1 and mirror is not null', [environmentId]);
  return Number(row!.n);
}

describe('the mirror of persons, distinct ids and groups on ClickHouse', () => {
  it('holds what PostgreSQL holds after $set, $identify, $create_alias, $merge_dangerously and $groupidentify, per environment', async () => {
    const other = await project();
    await other.send({ distinct_id: 'anon', properties: { $set: { tenant: 'other' } } }, { distinct_id: 'user' });
    const others = await inClickHouse(other.environment_id);
    expect(others.distinct_ids.map((row) => row.distinct_id)).toEqual(['anon', 'user']);

    const { send, environment_id } = await project();
    await send({ distinct_id: 'anon', properties: { $set: { source: 'ad', plan: 'free' }, $set_once: { first: '/' } } });
    await send({ distinct_id: 'user', properties: { $set: { plan: 'pro', gone: 1 } } }, identify('bob', 'b-anon', { $set: { name: 'Bob' } }));
    const before = await uuidsInPostgres(environment_id);
    await send(identify('user', 'anon', { $set: { email: 'user@x' }, $unset: ['gone'] }));
    await send({ event: '$create_alias', distinct_id: 'user', properties: { alias: 'user@work' } });
    await send({ event: '$merge_dangerously', distinct_id: 'user', properties: { alias: 'bob' } });
    await send({ event: '$groupidentify', distinct_id: 'user', properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme', seats: 5 } } });
    await send({ event: '$groupidentify', distinct_id: 'user', properties: { $group_type: 'company', $group_key: 'acme', $group_set: { seats: 9 } } });

    const postgres = await inPostgres(environment_id);
    expect(postgres.persons).toHaveLength(1);
    expect(postgres.distinct_ids.map((row) => row.distinct_id)).toEqual(['anon', 'b-anon', 'bob', 'user', 'user@work']);
    expect(postgres.groups).toEqual([{ group_type_index: 0, group_key: 'acme', group_properties: { name: 'Acme', seats: 9 } }]);
    expect(await inClickHouse(environment_id)).toEqual(postgres);
    // Every distinct id names the one person left, by the greatest version as HogQL reads it.
    const [joined] = await clickhouse.query<{ people: string[] }>(
      `SELECT groupUniqArray(person) AS people FROM (SELECT distinct_id, toString(argMax(person_id, version)) AS person FROM ${clickhouse.database}.person_distinct_id2 WHERE team_id = {team:Int64} GROUP BY distinct_id)`,
      { team: environment_id },
    );
    expect(joined!.people).toEqual([postgres.persons[0]!.uuid]);
    // The persons merged away are deleted there, as they are gone here.
    const left = await uuidsInPostgres(environment_id);
    expect(await deletedInClickHouse(environment_id)).toEqual(before.filter((uuid) => !left.includes(uuid)).sort());
    expect(await pendingMirrors(environment_id)).toBe(0);

    // The other tenant's rows, of the same distinct ids, are as they were.
    expect(await inClickHouse(other.environment_id)).toEqual(others);
    expect(others).toEqual(await inPostgres(other.environment_id));
  });

  it('keeps the pass when ClickHouse is away, and writes the mirror once it is back', async () => {
    const { send, environment_id } = await project();
    await send({ distinct_id: 'm-anon', properties: { $set: { a: 1 } } }, { distinct_id: 'm-user', properties: { $set: { b: 1 } } });
    const [anonymous] = await sql<{ uuid: string }>(databaseUrl(), "select p.uuid::text as uuid from ingestion.persons p join ingestion.person_distinct_ids d on d.person_id = p.id where d.environment_id = $1 and d.distinct_id = 'm-anon'", [environment_id]);
    const stale = await inClickHouse(environment_id);

    const away = ClickHouse.open(`http://default@127.0.0.1:${await freePort()}/x`);
    registerClickHouse(databaseUrl(), away);
    try {
      // A batch's changes as its transaction queued them: the events themselves cannot be stored while ClickHouse is away.
      const updates: ProfileEntry[] = [
        { distinct_id: 'm-user', time: Date.now() - 60_000, person: { set: { b: 2 }, set_once: null, unset: null, merge: { other: 'm-anon', dangerously: false } }, group: null },
        { distinct_id: 'm-user', time: Date.now() - 60_000, person: null, group: { group_type_index: 1, group_key: 'g1', group_set: { n: 1 } } },
      ];
      await sql(databaseUrl(), 'insert into ingestion.profile_updates (environment_id, updates, entries, created_at) values ($1, $2, 2, now())', [environment_id, JSON.stringify(updates)]);
      await applyProfiles(stack);
      // PostgreSQL took the pass; ClickHouse's mirror still shows the rows before it, and the record of what it lacks is kept.
      const postgres = await inPostgres(environment_id);
      expect(postgres.persons).toEqual([expect.objectContaining({ properties: { a: 1, b: 2 }, is_identified: true })]);
      expect(postgres.distinct_ids.map((row) => row.person)).toEqual([postgres.persons[0]!.uuid, postgres.persons[0]!.uuid]);
      expect(await inClickHouse(environment_id)).toEqual(stale);
      expect(await pendingMirrors(environment_id)).toBe(1);
    } finally {
      forgetClickHouse(databaseUrl(), away);
      await away.close();
    }

    // Back: the worker's sweep writes it, unasked, after its pause.
    await expect.poll(() => pendingMirrors(environment_id), { timeout: 20_000, interval: 250 }).toBe(0);
    const postgres = await inPostgres(environment_id);
    expect(await inClickHouse(environment_id)).toEqual(postgres);
    expect(postgres.groups).toEqual([{ group_type_index: 1, group_key: 'g1', group_properties: { n: 1 } }]);
    expect(await deletedInClickHouse(environment_id)).toEqual([anonymous!.uuid]);
  });
});
