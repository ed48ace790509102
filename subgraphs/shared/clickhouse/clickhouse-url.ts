/** Where the events live when CLICKHOUSE_URL is set: a ClickHouse server over HTTP(S), or chDB's engine in this process. */
export type ClickHouseTarget =
  | { kind: 'http'; url: string; username: string; password: string; database: string }
  | { kind: 'chdb'; path: string; database: string };

/** ClickHouse's database names: what needs no quoting in its DDL. */
const DATABASE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * Reads CLICKHOUSE_URL: `http(s)://user:password@host:8123/database` (the database from the path,
 * `default` when none), or `chdb:<directory>` with an optional `?database=<name>` (a test run keeps
 * several databases in one directory, as one process can hold one chDB directory only). Throws an
 * Error whose message says what is wrong; the config turns it into the setting's one line.
 */
export function parseClickHouseUrl(text: string): ClickHouseTarget {
  if (text.startsWith('chdb:')) return chdbTarget(text.slice('chdb:'.length));
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error('must be http(s)://user:password@host:port/database or chdb:<directory>');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('must be http(s)://user:password@host:port/database or chdb:<directory>');
  const path = decodeURIComponent(url.pathname.replace(/^\/+|\/+$/g, ''));
  const database = databaseName(path || 'default');
  const origin = `${url.protocol}//${url.host}`;
  return { kind: 'http', url: origin, username: decodeURIComponent(url.username) || 'default', password: decodeURIComponent(url.password), database };
}

function chdbTarget(rest: string): ClickHouseTarget {
  const [path = '', query = ''] = rest.split('?', 2);
  if (path.trim() === '') throw new Error('chdb: needs a directory (chdb:<directory>)');
  const params = new URLSearchParams(query);
  const unknown = [...params.keys()].find((key) => key !== 'database');
  if (unknown) throw new Error(`chdb: takes only ?database=<name>, not ${unknown}`);
  return { kind: 'chdb', path, database: databaseName(params.get('database') ?? 'default') };
}

function databaseName(name: string): string {
  if (!DATABASE_NAME.test(name)) throw new Error(`the database name ${JSON.stringify(name)} must be letters, digits and underscores, not starting with a digit`);
  return name;
}

/** ClickHouse's cluster names as `ON CLUSTER` takes them unquoted. */
export function isClusterName(name: string): boolean {
  return DATABASE_NAME.test(name);
}
