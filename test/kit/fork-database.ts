import pg from 'pg';

/**
 * The database of the fork a test file runs in. A tier's files run in parallel forks
 * (vitest.config.ts); the platform's background work (job queue, mail, assistant runs, sweeps)
 * takes whatever its database holds, so each fork has a database of its own and one file's stack at
 * a time works it, as when the files ran one after another. Fork 1 uses the tier's fresh database
 * (global-setup); fork N makes `<tier's database>_N` on the same server the first time, and the
 * tier's teardown drops them all ({@link dropForkDatabases}).
 */
export async function forkDatabase(tierUrl: string, poolId: number): Promise<string> {
  if (!(poolId > 1)) return tierUrl;
  const url = new URL(tierUrl);
  const name = `${decodeURIComponent(url.pathname.slice(1))}_${poolId}`;
  // Files of one fork run one after another: no other file makes this one meanwhile.
  await withAdmin(tierUrl, async (client) => {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) await client.query(`create database "${name}"`);
  });
  url.pathname = `/${encodeURIComponent(name)}`;
  return url.toString();
}

/** Drops the databases {@link forkDatabase} made for the tier's database. */
export async function dropForkDatabases(tierUrl: string): Promise<void> {
  const tier = decodeURIComponent(new URL(tierUrl).pathname.slice(1));
  await withAdmin(tierUrl, async (client) => {
    const { rows } = await client.query<{ datname: string }>('select datname from pg_database where left(datname, length($1) + 1) = $1 || $2', [tier, '_']);
    for (const { datname } of rows) if (/^_\d+$/.test(datname.slice(tier.length))) await client.query(`drop database if exists "${datname}" with (force)`);
  });
}

async function withAdmin(url: string, work: (client: pg.Client) => Promise<void>): Promise<void> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await work(client);
  } finally {
    await client.end();
  }
}
