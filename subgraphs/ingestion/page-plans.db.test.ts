import { MikroORM, type EntityManager } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ingestion } from './index.js';
import { eventQuery } from './events/event-condition.js';
import { ensurePartitions } from './events/event-partition.repository.js';
import { eventCondition, eventsPageStatement, readEvents } from './events/event.repository.js';
import { eventPageBoundStatement, readEventPageBound, type EventTime } from './exports/events.export.js';
import { groupsPageStatement } from './groups/group.repository.js';
import { personsPageStatement } from './persons/person.repository.js';
import { migrate } from '../shared/db/migrate.js';
import { ormOptions } from '../shared/db/orm.js';
import type { Statement } from '../shared/db/statement.js';
import { createLogger } from '../shared/logger.js';
import { planProblems } from '../../test/kit/plans.js';

// The pages' statements as the repositories build them, planned over tables big enough that the
// planner weighs an index against reading everything: a page must walk its index, never read a
// whole table (Seq Scan) or sort what it read (Sort).

const SILENT = createLogger('silent');
/** Far from the environments other suites make, which a sequence numbers from one. */
const ENVIRONMENT = 960_001;
const OTHERS = [960_002, 960_003, 960_004];
const ALL = [ENVIRONMENT, ...OTHERS];
/** Rows per environment: enough that reading a table whole costs more than a page off an index. */
const ROWS = 30_000;
const FIRST_EVENT = Date.UTC(2026, 0, 1);
/** Two events an instant, so that the uuid orders ties; they fill three monthly partitions. */
const EVENT_SPACING_MS = 6 * 60_000;

let orm: MikroORM;
let em: EntityManager;

beforeAll(async () => {
  orm = await MikroORM.init(ormOptions(ingestion, inject('databaseUrl'), 2));
  await migrate(ingestion, orm, SILENT);
  em = orm.em.fork();
  const span = Math.ceil(ROWS / 2) * EVENT_SPACING_MS;
  await ensurePartitions(em, [FIRST_EVENT, FIRST_EVENT + span / 2, FIRST_EVENT + span], SILENT);
  await clear();
  await em.execute(
    `insert into ingestion.events (uuid, environment_id, event, distinct_id, timestamp, properties, created_at)
     select gen_random_uuid(), e.id, case when n % 3 = 0 then 'signed_up' else '$pageview' end, 'user-' || (n % 500),
            t.at, jsonb_build_object('n', n), t.at + interval '1 minute'
       from unnest(?::int[]) as e(id), generate_series(0, ? - 1) as n,
            lateral (select ?::timestamptz + (n / 2) * make_interval(secs => ?) as at) t`,
    [`{${ALL.join(',')}}`, ROWS, new Date(FIRST_EVENT).toISOString(), EVENT_SPACING_MS / 1000],
  );
  await em.execute(
    `insert into ingestion.persons (environment_id, uuid, properties, is_identified, created_at, version)
     select e.id, gen_random_uuid(), jsonb_build_object('email', 'p' || n || '@example.com'), false, ?::timestamptz + (n / 2) * interval '1 minute', 0
       from unnest(?::int[]) as e(id), generate_series(0, ? - 1) as n`,
    [new Date(FIRST_EVENT).toISOString(), `{${ALL.join(',')}}`, ROWS],
  );
  await em.execute(
    `insert into ingestion.person_distinct_ids (environment_id, distinct_id, person_id)
     select environment_id, 'd-' || id, id from ingestion.persons where environment_id in (?)`,
    [ALL],
  );
  await em.execute(
    `insert into ingestion.groups (environment_id, group_type_index, group_key, group_properties, created_at, updated_at)
     select e.id, n % 2, 'g-' || n, jsonb_build_object('name', 'Group ' || n), ?::timestamptz + (n / 4) * interval '1 minute', now()
       from unnest(?::int[]) as e(id), generate_series(0, ? - 1) as n`,
    [new Date(FIRST_EVENT).toISOString(), `{${ALL.join(',')}}`, ROWS],
  );
  await em.execute('analyze ingestion.events, ingestion.persons, ingestion.person_distinct_ids, ingestion.groups');
}, 120_000);

afterAll(async () => {
  if (!em) return;
  await clear();
  await orm.close();
});

async function clear(): Promise<void> {
  await em.execute('delete from ingestion.events where environment_id in (?)', [ALL]);
  await em.execute('delete from ingestion.persons where environment_id in (?)', [ALL]);
  await em.execute('delete from ingestion.groups where environment_id in (?)', [ALL]);
}

/** What the planner would do with a statement, as `EXPLAIN (FORMAT JSON)` tells it. */
async function planOf(statement: Statement): Promise<unknown> {
  const [row] = await em.execute<{ 'QUERY PLAN': [{ Plan: unknown }] }[]>(`explain (format json) ${statement.sql}`, statement.params);
  return row!['QUERY PLAN'][0].Plan;
}

describe('the events page', () => {
  const where = eventCondition(eventQuery(ENVIRONMENT, {}));

  it('walks the (environment, timestamp, uuid) index for the first page', async () => {
    expect(planProblems(await planOf(eventsPageStatement(where, null, 101)), /^events/)).toEqual([]);
  });

  it('walks it from a cursor for a later page', async () => {
    const page = await readEvents(em, where, null, 500);
    const last = page.at(-1)!;
    expect(planProblems(await planOf(eventsPageStatement(where, { timestamp: last.timestamp, uuid: last.id }, 101)), /^events/)).toEqual([]);
  });
});

describe("an export page's bound", () => {
  it.each<EventTime>(['timestamp', 'created_at'])('walks the (environment, %s, uuid) index, from the start and from a keyset', async (by) => {
    // A backfill's month; a scheduled run's interval is shorter.
    const window = { by, start: new Date(Date.UTC(2026, 1, 1)), end: new Date(Date.UTC(2026, 2, 1)) };
    const after = await readEventPageBound(em, ENVIRONMENT, window, null, 1000);
    expect(after).not.toBeNull();
    for (const from of [null, after]) {
      expect(planProblems(await planOf(eventPageBoundStatement(ENVIRONMENT, window, from, 10_000)), /^events/)).toEqual([]);
    }
  });
});

describe('the persons page', () => {
  it('walks the (environment, created_at, id) index for the first page and a later one', async () => {
    for (const offset of [0, 500]) {
      expect(planProblems(await planOf(personsPageStatement(ENVIRONMENT, {}, { limit: 100, offset })), /^persons$/)).toEqual([]);
    }
  });
});

describe('the groups page', () => {
  it('walks the (environment, type, created_at desc, key) index for the first page and a later one', async () => {
    for (const offset of [0, 500]) {
      expect(planProblems(await planOf(groupsPageStatement(ENVIRONMENT, { group_type_index: 1 }, { limit: 100, offset })), /^groups$/)).toEqual([]);
    }
  });
});
