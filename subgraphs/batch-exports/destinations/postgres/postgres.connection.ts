import { isIP } from 'node:net';
import pg from 'pg';
import { normalHost } from '../../../shared/outbound-allow-list.js';
import type { JsonObject } from '../../../shared/validation.js';
import { destinationAddress } from '../destination-address.js';
import { DestinationError } from '../destination.js';

/**
 * A connection to the config's database. TLS as PostHog connects (`sslmode` `require`, the
 * certificate checked unless `has_self_signed_cert`); `sslmode: disable` for a server without TLS.
 * The client is given the address the outbound policy checked, never the name (pg would resolve
 * it again); the certificate is checked against the name.
 */
export async function connect(config: JsonObject): Promise<pg.Client> {
  const host = String(config.host);
  const port = Number(config.port ?? 5432);
  const { address } = await destinationAddress(host, port);
  const servername = isIP(normalHost(host)) ? undefined : normalHost(host);
  const ssl = config.sslmode === 'disable' ? false : { rejectUnauthorized: config.has_self_signed_cert !== true, servername };
  const client = new pg.Client({
    host: address,
    port,
    user: String(config.user ?? ''),
    password: String(config.password ?? ''),
    database: String(config.database),
    ssl,
    connectionTimeoutMillis: 10_000,
    // A server gone silent fails the run (to be tried again) rather than holding it.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    statement_timeout: 3_600_000,
    application_name: 'analytics-batch-export',
  });
  // A connection lost between queries must not crash the process; the next query fails instead.
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    throw postgresFailure(error);
  }
  return client;
}

/**
 * What the database refused, in its words. Refusals of the config or the data (credentials, a
 * missing database, schema, table or column, privileges, a value the column cannot hold) end the
 * run; lost connections, a server shutting down, resources and conflicts are tried again.
 */
export function postgresFailure(error: unknown): DestinationError {
  if (error instanceof DestinationError) return error;
  const { code, message } = error as { code?: string; message?: string };
  const text = `${message ?? String(error)}`;
  if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
    const retryable = ['08', '53', '57P', '40'].some((prefix) => code.startsWith(prefix));
    return new DestinationError(`PostgreSQL refused (${code}): ${text}`, retryable);
  }
  if (/does not support SSL|self.signed|certificate/i.test(text)) return new DestinationError(`PostgreSQL connection failed: ${text}`, false);
  return new DestinationError(`PostgreSQL connection failed: ${code ? `${code} ` : ''}${text}`, true);
}
