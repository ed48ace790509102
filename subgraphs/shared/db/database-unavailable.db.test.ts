import knex from 'knex';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { isDatabaseUnavailable, isLoginRefused } from './database-unavailable.js';

/** The error a real connection attempt fails with. */
async function connectionError(connectionString: string): Promise<unknown> {
  const client = new pg.Client({ connectionString, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (error) {
    return error;
  } finally {
    await client.end().catch(() => undefined);
  }
  throw new Error(`${connectionString} answered`);
}

describe(isDatabaseUnavailable.name, () => {
  it('knows a server that refuses connections and a database that is gone', async () => {
    expect(isDatabaseUnavailable(await connectionError('postgres://postgres@127.0.0.1:1/none'))).toBe(true);
    const url = new URL(inject('databaseUrl'));
    url.pathname = '/analytics_no_such_database';
    expect(isDatabaseUnavailable(await connectionError(url.toString()))).toBe(true);
    expect(isDatabaseUnavailable(new Error('wrapped', { cause: Object.assign(new Error('terminating connection'), { code: '57P01' }) }))).toBe(true);
  });

  it('does not take a wrong statement or a defect for an outage', async () => {
    const client = new pg.Client({ connectionString: inject('databaseUrl') });
    await client.connect();
    try {
      const refused = await client.query('select * from no_such_table').catch((error: unknown) => error);
      expect(isDatabaseUnavailable(refused)).toBe(false);
    } finally {
      await client.end();
    }
    // 55000 names a statement's defect too (currval before nextval in the session).
    const early = await sql(`select currval('analytics_no_such_use_seq')`, 'create temporary sequence analytics_no_such_use_seq');
    expect(early).toMatchObject({ code: '55000' });
    expect(isDatabaseUnavailable(early)).toBe(false);
    expect(isDatabaseUnavailable(new TypeError('x is undefined'))).toBe(false);
    // fetch() to a server that refuses: not the database.
    expect(isDatabaseUnavailable(await fetch('http://127.0.0.1:1/').catch((error: unknown) => error))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});

describe(`${isDatabaseUnavailable.name} of a pool`, () => {
  it('knows a pool that had no connection to give in time', async () => {
    const pool = knex({ client: 'pg', connection: inject('databaseUrl'), pool: { min: 0, max: 1 }, acquireConnectionTimeout: 200 });
    try {
      const held = await pool.transaction();
      const waited = await pool.raw('select 1').catch((error: unknown) => error);
      await held.rollback();
      expect(waited).toMatchObject({ name: 'KnexTimeoutError' });
      expect(isDatabaseUnavailable(waited)).toBe(true);
    } finally {
      await pool.destroy();
    }
  });
});

/** The error of `text` on the test database, after `before` in the same session. */
async function sql(text: string, before?: string): Promise<unknown> {
  const client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
  try {
    if (before) await client.query(before);
    await client.query(text);
  } catch (error) {
    return error;
  } finally {
    await client.end();
  }
  throw new Error(`${text} succeeded`);
}

describe(isLoginRefused.name, () => {
  it('knows a role the server lacks, and a server that does not offer TLS', async () => {
    const url = new URL(inject('databaseUrl'));
    url.username = 'analytics_no_such_role';
    expect(isLoginRefused(await connectionError(url.toString()))).toBe(true);
    expect(isLoginRefused(new Error('The server does not support SSL connections'))).toBe(true);
    expect(isLoginRefused(await connectionError('postgres://postgres@127.0.0.1:1/none'))).toBe(false);
    expect(isLoginRefused(undefined)).toBe(false);
  });
});
