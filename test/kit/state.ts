import pg from 'pg';
import { JOB_SCHEMA } from '../../subgraphs/shared/jobs/job-queue.js';

/**
 * Columns that a request may touch without changing what the platform holds: a key's last use is
 * written by any authenticated call, refused or not (PostHog does the same).
 */
const VOLATILE_COLUMNS = ['last_used_at'];

/** The job queue's own bookkeeping (pg-boss maintenance, polling) moves on its own. */
const SKIPPED_SCHEMAS = ['pg_catalog', 'information_schema', 'pg_toast', JOB_SCHEMA];

/** Every table of a database with its row count and a digest of its rows, in a stable order. */
export async function fingerprint(databaseUrl: string): Promise<Map<string, string>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows: tables } = await client.query<{ name: string }>(
      `select format('%I.%I', n.nspname, c.relname) as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where c.relkind in ('r', 'p') and not c.relispartition and n.nspname <> all($1) and n.nspname not like 'pg_temp%' order by 1`,
      [SKIPPED_SCHEMAS],
    );
    const digests = new Map<string, string>();
    for (const { name } of tables) {
      const row = `(to_jsonb(t) - $1::text[])::text`;
      const { rows } = await client.query<{ n: string; digest: string | null }>(
        `select count(*) as n, md5(string_agg(md5(${row}), '' order by md5(${row}))) as digest from ${name} t`,
        [VOLATILE_COLUMNS],
      );
      digests.set(name, `${rows[0]!.n}:${rows[0]!.digest ?? ''}`);
    }
    return digests;
  } finally {
    await client.end();
  }
}

/** The tables whose rows differ between two fingerprints. */
export function changedTables(before: Map<string, string>, after: Map<string, string>): string[] {
  const names = new Set([...before.keys(), ...after.keys()]);
  return [...names].filter((name) => before.get(name) !== after.get(name)).sort();
}
