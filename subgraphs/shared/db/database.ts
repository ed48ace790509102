import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';
import { EmbeddedDatabase } from './embedded.js';

export interface Database {
  url: string;
  /** Set when the platform runs the server itself. */
  embedded?: EmbeddedDatabase;
}

/** DATABASE_URL when set; otherwise an embedded PostgreSQL with its data in `$DATA_DIR/pg`. */
export async function openDatabase(config: Config, log: Logger): Promise<Database> {
  if (config.DATABASE_URL) {
    await answers(config.DATABASE_URL);
    return { url: config.DATABASE_URL };
  }
  // Each worker may open up to 10 connections per subgraph (8), and the primary, scripts and jobs a few more.
  const embedded = await EmbeddedDatabase.start(config.DATA_DIR, log, Math.min(2000, Math.max(100, 100 * config.WORKERS)));
  return { url: embedded.url, embedded };
}

/** How long start-up waits for DATABASE_URL's server to accept a connection and answer. */
const REACH_TIMEOUT_MS = 10_000;

/**
 * Fails (with an error the start-up line names DATABASE_URL for) unless the server accepts a
 * connection and answers within REACH_TIMEOUT_MS: a server that takes the connection and never
 * answers would otherwise hold start-up for ever, the pools waiting without a bound.
 */
async function answers(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: REACH_TIMEOUT_MS, query_timeout: REACH_TIMEOUT_MS });
  try {
    await client.connect();
    await client.query('select 1');
  } catch (error) {
    // pg's own words ("timeout expired", "Query read timeout") do not say what timed out.
    if (/timeout/i.test((error as Error).message)) throw Object.assign(new Error(`no answer within ${REACH_TIMEOUT_MS / 1000} s`, { cause: error }), { code: 'ETIMEDOUT' });
    throw error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** A new, empty database on the server of `baseUrl`, named with `prefix`; returns its URL. */
export async function createScratchDatabase(baseUrl: string, prefix: string): Promise<string> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await withAdminClient(baseUrl, (client) => client.query(`create database "${name}"`));
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function dropDatabase(url: string): Promise<void> {
  const name = decodeURIComponent(new URL(url).pathname.slice(1));
  await withAdminClient(url, (client) => client.query(`drop database if exists "${name}" with (force)`));
}

async function withAdminClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
