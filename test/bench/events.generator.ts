import { createHash } from 'node:crypto';
import type { ExportedEvent } from '../kit/events.js';

/*
 * The events of ../shared/bench/events-queries.md, event i of N, written three ways that give the
 * same rows: in JavaScript (what `/batch/` and the direct insert send), and as SQL for PostgreSQL
 * and for ClickHouse (what loads the rest straight into each store). The uuid is "random" as the
 * document says, but derived from i (an md5, shaped as a version-4 uuid), so that both stores hold
 * the very same events and a count or an answer can be compared between them.
 */

/** A year of history, in seconds: event i is `(i × 7919) mod YEAR` seconds before T0. */
const YEAR_SECONDS = 31_536_000;
const STEP = 7919;
const USERS = 5000;

/** T0 = now − 3 days, in whole seconds (the SQL and the JavaScript then agree to the microsecond). */
export function benchT0(now = Date.now()): number {
  return Math.floor(now / 1000) - 3 * 86_400;
}

/** Event i, as an SDK sends it. */
export function benchEvent(i: number, t0: number): ExportedEvent & { uuid: string } {
  return {
    uuid: uuidOf(i),
    event: i % 3 === 0 ? '$pageview' : 'click',
    distinct_id: `u${i % USERS}`,
    timestamp: new Date((t0 - ((i * STEP) % YEAR_SECONDS)) * 1000).toISOString(),
    properties: { $browser: i % 2 === 1 ? 'Firefox' : 'Chrome', $current_url: `https://example.com/p/${i % 100}`, n: i % 1000 },
  };
}

/** The earliest timestamp any event can have, in seconds. */
export function earliestSecond(t0: number): number {
  return t0 - YEAR_SECONDS + 1;
}

function uuidOf(i: number): string {
  const h = createHash('md5').update(`bench-${i}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * `ingestion.events` rows (and their `event_ids`) for i in [$3, $4), of environment $1, T0 = $2
 * (epoch seconds), stored now: as `/batch/` would have stored them.
 */
export const POSTGRES_EVENTS_INSERT = `
  with generated as (
    select md5('bench-' || i) as h, i from generate_series($3::bigint, $4::bigint - 1) as i
  ), rows as (
    insert into ingestion.events (uuid, environment_id, event, distinct_id, timestamp, properties, created_at)
    select (substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-8' || substr(h, 18, 3) || '-' || substr(h, 21, 12))::uuid,
           $1, case when i % 3 = 0 then '$pageview' else 'click' end, 'u' || (i % ${USERS}),
           to_timestamp($2::bigint - (i * ${STEP}) % ${YEAR_SECONDS}),
           jsonb_build_object('$browser', case when i % 2 = 1 then 'Firefox' else 'Chrome' end, '$current_url', 'https://example.com/p/' || (i % 100), 'n', i % 1000),
           now()
      from generated
    returning uuid, timestamp
  )
  insert into ingestion.event_ids (environment_id, uuid, timestamp) select $1, uuid, timestamp from rows`;

/**
 * ClickHouse's `events` rows for i in [from, to) of a team, stored now; properties as the JSON
 * text JavaScript writes for them. Every value is the bench's own integer.
 */
export function clickhouseEventsInsert(database: string, team: number, t0: number, from: number, to: number): string {
  for (const value of [team, t0, from, to]) if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
  const uuid = `toUUID(concat(substring(h, 1, 8), '-', substring(h, 9, 4), '-4', substring(h, 14, 3), '-8', substring(h, 18, 3), '-', substring(h, 21, 12)))`;
  const properties = `concat('{"$browser":"', if(number % 2 = 1, 'Firefox', 'Chrome'), '","$current_url":"https://example.com/p/', toString(number % 100), '","n":', toString(number % 1000), '}')`;
  return `INSERT INTO ${database}.events (uuid, event, properties, timestamp, team_id, distinct_id, created_at)
    SELECT ${uuid}, if(number % 3 = 0, '$pageview', 'click'), ${properties},
           toDateTime64(${t0} - (number * ${STEP}) % ${YEAR_SECONDS}, 6, 'UTC'), ${team}, concat('u', toString(number % ${USERS})), now64(6)
      FROM (SELECT number, lower(hex(MD5(concat('bench-', toString(number))))) AS h FROM numbers(${from}, ${to - from}))`;
}
