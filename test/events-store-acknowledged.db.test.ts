import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ClickHouse } from '../subgraphs/shared/clickhouse/clickhouse.js';
import { forgetClickHouse, registerClickHouse } from '../subgraphs/shared/clickhouse/clickhouse.registry.js';
import { sql } from './kit/db.js';
import { testChdbUrl } from './kit/events-store.js';
import { anEvent, applyProfiles, eventCount, postBatch } from './kit/ingest.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

/*
 * On ClickHouse a batch's profile changes commit in PostgreSQL before its events are inserted,
 * marked as awaiting that insert, and the transaction that clears the mark commits once ClickHouse
 * answered. Before that, the insert came last inside the batch's transaction: a commit refused
 * after it left the events stored and the changes rolled back, and the client's retry, finding
 * every event stored, queued nothing: the changes were lost. These tests make the failures real,
 * without touching the platform's code: PostgreSQL is made to refuse the transaction that clears
 * the mark (a constraint trigger the test creates for its own environment), either at its commit,
 * after ClickHouse took the events (`deferred`), or at its first statement, before the insert (as
 * when the process dies between the batch's commit and its insert); and a ClickHouse stand-in
 * answers reads but refuses inserts, as one throttling them does.
 */

let stack: Stack;
/** Answers every read with no rows, and every insert with ClickHouse's error for throttled inserts. */
let refusingInserts: Server;
const databaseUrl = () => inject('databaseUrl');

beforeAll(async () => {
  stack = await startStack({ databaseUrl: databaseUrl(), env: { CLICKHOUSE_URL: testChdbUrl(`${new URL(databaseUrl()).pathname.slice(1)}_acknowledged`) } });
  refusingInserts = createServer((request, response) => {
    const query = new URL(request.url ?? '/', 'http://stand-in').searchParams.get('query') ?? '';
    request.resume();
    if (!/^\s*INSERT/i.test(query)) return void response.writeHead(200, { 'content-type': 'application/x-ndjson' }).end();
    response.writeHead(500, { 'x-clickhouse-exception-code': '252', 'content-type': 'text/plain' });
    response.end("Code: 252. DB::Exception: Too many parts (3000 with average size of 1.00 KiB) in table 'analytics.events'. (TOO_MANY_PARTS) (version 26.7.2.1)");
  });
  await new Promise<void>((resolve) => refusingInserts.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await stack?.stop();
  refusingInserts?.close();
});

/** A tenant, and a batch of a person's and a group's changes for it. */
async function aBatch() {
  const owner = await seedTenant(databaseUrl(), 'acknowledged');
  const distinctId = `user-${owner.environment_id}`;
  const batch = [
    anEvent({ event: '$identify', distinct_id: distinctId, properties: { $anon_distinct_id: `anon-${owner.environment_id}`, $set: { email: 'ada@example.com' } } }),
    anEvent({ event: '$groupidentify', distinct_id: distinctId, properties: { $group_type: 'company', $group_key: 'acme', $group_set: { plan: 'pro' } } }),
  ];
  return { owner, distinctId, send: () => postBatch(stack, { api_key: owner.project_api_key, batch }) };
}

/**
 * Runs `send` while PostgreSQL refuses the transaction that clears the mark of the environment's
 * awaited insert: at its commit (after the insert), or at once (before it).
 */
async function refusingClear<T>(owner: Tenant, when: 'at commit' | 'at once', send: () => Promise<T>): Promise<T> {
  const name = `refuse_clear_${owner.environment_id}`;
  await sql(databaseUrl(), `create function public.${name}() returns trigger language plpgsql as $$ begin raise exception 'refused by the test'; end $$`);
  await sql(
    databaseUrl(),
    `create constraint trigger ${name} after update on ingestion.profile_updates ${when === 'at commit' ? 'deferrable initially deferred' : ''} for each row
       when (old.insert_token is not null and new.insert_token is null and new.environment_id = ${owner.environment_id}) execute function public.${name}()`,
  );
  try {
    return await send();
  } finally {
    await sql(databaseUrl(), `drop trigger ${name} on ingestion.profile_updates`);
    await sql(databaseUrl(), `drop function public.${name}()`);
  }
}

/** Runs `send` while the installation's ClickHouse answers reads but refuses inserts. */
async function whileInsertsRefused<T>(send: () => Promise<T>): Promise<T> {
  const away = ClickHouse.open(`http://default@127.0.0.1:${(refusingInserts.address() as AddressInfo).port}/analytics`);
  registerClickHouse(databaseUrl(), away);
  try {
    return await send();
  } finally {
    forgetClickHouse(databaseUrl(), away);
    await away.close();
  }
}

/** The environment's queued rows of changes, and how many of them await an insert. */
async function queue(owner: Tenant): Promise<{ queued: number; awaiting: number }> {
  const [row] = await sql<{ queued: string; awaiting: string }>(
    databaseUrl(),
    'select count(*) as queued, count(*) filter (where insert_token is not null) as awaiting from ingestion.profile_updates where environment_id = $1 and mirror is null',
    [owner.environment_id],
  );
  return { queued: Number(row!.queued), awaiting: Number(row!.awaiting) };
}

/**
 * After a retry answered 200: its changes wait for no insert, queued once. The stack's own worker
 * applies a batch's changes a moment after it is answered, and may have done so by now: then
 * none is left, and what it applied is checked after the drain.
 */
async function queuedOnceOrApplied(owner: Tenant): Promise<void> {
  const { queued, awaiting } = await queue(owner);
  expect({ awaiting, queuedAtMostOnce: queued <= 1 }).toEqual({ awaiting: 0, queuedAtMostOnce: true });
}

/** What the changes made: the person's properties and the group's, null where none is. */
async function profiles(owner: Tenant, distinctId: string) {
  const [person] = await sql<{ properties: Record<string, unknown> }>(
    databaseUrl(),
    'select p.properties from ingestion.persons p join ingestion.person_distinct_ids d on d.person_id = p.id where d.environment_id = $1 and d.distinct_id = $2',
    [owner.environment_id, distinctId],
  );
  const [group] = await sql<{ group_properties: Record<string, unknown> }>(databaseUrl(), 'select group_properties from ingestion.groups where environment_id = $1 and group_key = $2', [owner.environment_id, 'acme']);
  return { person: person?.properties ?? null, group: group?.group_properties ?? null };
}

const APPLIED = { person: { email: 'ada@example.com' }, group: { plan: 'pro' } };
const NONE = { person: null, group: null };

/** Ages the environment's marks past the sweep's patience, as if their process had gone a while ago. */
async function leftBehind(owner: Tenant): Promise<void> {
  await sql(databaseUrl(), "update ingestion.profile_updates set created_at = created_at - interval '1 minute' where environment_id = $1", [owner.environment_id]);
}

describe('a batch on ClickHouse whose attempt failed after its commit', () => {
  it.each([
    ['whose last commit failed after ClickHouse took its events', 'at commit', 2],
    ['whose process died before its insert', 'at once', 0],
  ] as const)('keeps the changes of a batch %s: the retry stores the events once and applies the changes once', async (_case, refusal, storedAtFailure) => {
    const { owner, distinctId, send } = await aBatch();
    expect((await refusingClear(owner, refusal, send)).status).toBe(500);
    expect(await eventCount(databaseUrl(), owner.environment_id)).toBe(storedAtFailure);
    await applyProfiles(stack);
    expect(await profiles(owner, distinctId)).toEqual(NONE);
    expect((await send()).status).toBe(200);
    await queuedOnceOrApplied(owner);
    await applyProfiles(stack);
    expect(await profiles(owner, distinctId)).toMatchObject(APPLIED);
    expect(await eventCount(databaseUrl(), owner.environment_id)).toBe(2);
  });

  it('applies no change while ClickHouse refuses the insert, and the retry once it takes them applies them once', async () => {
    const { owner, distinctId, send } = await aBatch();
    expect((await whileInsertsRefused(send)).status).toBe(503);
    expect(await queue(owner)).toEqual({ queued: 1, awaiting: 1 });
    await applyProfiles(stack);
    expect(await profiles(owner, distinctId)).toEqual(NONE);
    expect((await send()).status).toBe(200);
    await queuedOnceOrApplied(owner);
    await applyProfiles(stack);
    expect(await profiles(owner, distinctId)).toMatchObject(APPLIED);
    expect(await eventCount(databaseUrl(), owner.environment_id)).toBe(2);
  });
});

describe('changes left awaiting an insert, without a retry', () => {
  it('apply once the sweep finds their events in ClickHouse', async () => {
    const { owner, distinctId, send } = await aBatch();
    expect((await refusingClear(owner, 'at commit', send)).status).toBe(500);
    await leftBehind(owner);
    await applyProfiles(stack);
    expect(await profiles(owner, distinctId)).toMatchObject(APPLIED);
    expect(await queue(owner)).toEqual({ queued: 0, awaiting: 0 });
  });

  it('go once the sweep finds their events absent, and a later retry queues them again', async () => {
    const { owner, distinctId, send } = await aBatch();
    expect((await refusingClear(owner, 'at once', send)).status).toBe(500);
    await leftBehind(owner);
    await applyProfiles(stack);
    expect(await queue(owner)).toEqual({ queued: 0, awaiting: 0 });
    expect(await profiles(owner, distinctId)).toEqual(NONE);
    expect((await send()).status).toBe(200);
    await applyProfiles(stack);
    expect(await profiles(owner, distinctId)).toMatchObject(APPLIED);
    expect(await eventCount(databaseUrl(), owner.environment_id)).toBe(2);
  });

  it('hold back the environment\'s later batches, which apply after them', async () => {
    const { owner, distinctId, send } = await aBatch();
    expect((await refusingClear(owner, 'at commit', send)).status).toBe(500);
    const later = anEvent({ event: '$set', distinct_id: distinctId, properties: { $set: { email: 'later@example.com' } } });
    expect((await postBatch(stack, { api_key: owner.project_api_key, batch: [later] })).status).toBe(200);
    await applyProfiles(stack);
    expect(await profiles(owner, distinctId)).toEqual(NONE);
    await leftBehind(owner);
    await applyProfiles(stack);
    expect((await profiles(owner, distinctId)).person).toMatchObject({ email: 'later@example.com' });
  });
});
