import { ValidationError } from '../../../shared/errors.js';
import type { JsonObject } from '../../../shared/validation.js';
import { EVENT_FILTERS, type ConfigField } from '../destination-config.js';
import { DestinationError, type Destination, type TestStep } from '../destination.js';
import { connect, postgresFailure } from './postgres.connection.js';
import { deliverRows } from './postgres.delivery.js';
import { quoteIdent } from './postgres.tables.js';

export const POSTGRES_FIELDS: readonly ConfigField[] = [
  { name: 'host', type: 'string', required: true, description: 'The server.' },
  { name: 'port', type: 'integer', default: 5432, description: 'Its port (5432).' },
  { name: 'database', type: 'string', required: true, description: 'The database.' },
  { name: 'user', type: 'string', required: true, secret: true, description: 'The role (write-only).' },
  { name: 'password', type: 'string', required: true, secret: true, description: 'Its password (write-only).' },
  { name: 'schema', type: 'string', default: 'public', description: 'The schema of the table (it must exist).' },
  { name: 'table_name', type: 'string', required: true, description: 'The table; made when absent.' },
  { name: 'has_self_signed_cert', type: 'boolean', default: false, description: "Accept the server's certificate unchecked." },
  { name: 'sslmode', type: 'string', default: 'require', choices: ['require', 'disable'], description: '`require` (TLS, as PostHog connects) or `disable` (a server without TLS, on a network you trust).' },
  ...EVENT_FILTERS,
];

/** Runs one probe on a connection of the config. */
async function withConnection(config: JsonObject, probe: (client: Awaited<ReturnType<typeof connect>>) => Promise<void>): Promise<void> {
  const client = await connect(config);
  try {
    await probe(client);
  } catch (error) {
    throw postgresFailure(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const TEST_STEPS: readonly TestStep[] = [
  {
    name: 'Connect to PostgreSQL',
    description: 'Ensure we can connect to the configured database with the given credentials.',
    run: (config) => withConnection(config, async (client) => void (await client.query('SELECT 1'))),
  },
  {
    name: 'Check the schema exists',
    description: 'Ensure the configured schema exists, so that the table can be made in it.',
    run: (config) =>
      withConnection(config, async (client) => {
        const schema = String(config.schema ?? 'public');
        const { rowCount } = await client.query('SELECT 1 FROM information_schema.schemata WHERE schema_name = $1', [schema]);
        if (!rowCount) throw new DestinationError(`Schema '${schema}' does not exist or we don't have permissions to use it`, false);
      }),
  },
  {
    name: 'Write a test table',
    description: 'Ensure we can make a table in the schema and write a row to it; nothing is kept.',
    run: (config) =>
      withConnection(config, async (client) => {
        const table = `${quoteIdent(String(config.schema ?? 'public'))}.${quoteIdent(`batch_export_test_${Date.now()}`)}`;
        await client.query('BEGIN');
        try {
          await client.query(`CREATE TABLE ${table} (uuid TEXT, event TEXT)`);
          await client.query(`INSERT INTO ${table} VALUES ('test', 'test')`);
        } finally {
          await client.query('ROLLBACK');
        }
      }),
  },
];

/** A table in another PostgreSQL database, made when absent, written in one transaction per run. */
export const postgresDestination: Destination = {
  type: 'Postgres',
  fields: POSTGRES_FIELDS,
  models: ['events', 'persons'],
  targetFields: ['host', 'port', 'sslmode', 'has_self_signed_cert'],
  targets: (config) => [{ field: 'host', host: String(config.host ?? ''), port: Number(config.port ?? 5432) }],
  takesQuery: true,
  eventsQuery:
    'SELECT uuid, event, properties, elements_chain AS elements, properties.$set AS set, properties.$set_once AS set_once, distinct_id, team_id, properties.$ip AS ip, NULL AS site_url, timestamp FROM events',
  check(config) {
    const empty = ['host', 'database', 'table_name'].filter((name) => typeof config[name] === 'string' && (config[name] as string).trim() === '');
    if (empty.length > 0) throw new ValidationError(`The following inputs are empty: [${empty.map((name) => `'${name}'`).join(', ')}]`, 'destination');
    const port = config.port as number | null | undefined;
    if (port !== null && port !== undefined && (port < 1 || port > 65535)) throw new ValidationError(`Invalid port: ${port}`, 'destination');
    for (const name of ['table_name', 'schema']) {
      const value = config[name];
      if (typeof value === 'string' && Buffer.byteLength(value) > 63) throw new ValidationError(`${name} must be at most 63 bytes (PostgreSQL's longest name).`, 'destination');
    }
  },
  deliver: deliverRows,
  testSteps: TEST_STEPS,
};
