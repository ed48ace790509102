import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { copyText } from '../../subgraphs/shared/db/copy.js';
import type { ExportedEvent } from '../kit/events.js';

/** Rows of `ingestion.events` for these events, as COPY reads them (kept off the heap). */
export function copyChunk(events: ExportedEvent[], environmentId: number): Buffer {
  const rows = events.map((event) =>
    [event.uuid!, environmentId, copyText(event.event), copyText(event.distinct_id), event.timestamp, copyText(JSON.stringify(event.properties))].join('\t'),
  );
  return Buffer.from(`${rows.join('\n')}\n`);
}

/**
 * `bench_copy.events`: a table like `ingestion.events` (columns, defaults, indexes, partitioned
 * by month) with the same partitions, made afresh.
 */
export async function createCopyTable(client: pg.Client): Promise<void> {
  await client.query('drop schema if exists bench_copy cascade; create schema bench_copy');
  await client.query('create table bench_copy.events (like ingestion.events including defaults including indexes) partition by range (timestamp)');
  const { rows } = await client.query<{ name: string; bound: string }>(
    `select c.relname as name, pg_get_expr(c.relpartbound, c.oid) as bound
       from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = 'ingestion.events'::regclass`,
  );
  for (const { name, bound } of rows) await client.query(`create table bench_copy.${name} partition of bench_copy.events ${bound}`);
}

/** Streams the chunks into `bench_copy.events` with one COPY on one connection; answers the time it took. */
export async function copyRows(client: pg.Client, chunks: Buffer[]): Promise<number> {
  const started = performance.now();
  await pipeline(
    Readable.from(chunks),
    client.query(copyStreams.from('copy bench_copy.events (uuid, environment_id, event, distinct_id, timestamp, properties) from stdin')),
  );
  return performance.now() - started;
}
