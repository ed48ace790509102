import type { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import pg from 'pg';
import { AppError } from '../../shared/errors.js';

/**
 * Room for the protocol's own messages around the rows (the row description, the completion), so
 * that the socket's count stays above the rows' own until a row is really past the limit.
 */
const PROTOCOL_SLACK_BYTES = 64 * 1024;

/** 400: the result is past the bytes a query may read (QUERY_MAX_RESULT_BYTES, or the caller's limit). */
export class ResultTooLargeError extends AppError {
  constructor(maxBytes: number) {
    super(400, 'validation_error', 'result_too_large', `Query result exceeds the limit of ${sizeOf(maxBytes)}: select fewer rows, fewer columns or smaller values.`, 'query');
  }
}

export interface ReadLimits {
  maxBytes: number;
  /** At the limit, answer the whole rows read so far (`truncated`) instead of failing. */
  partial: boolean;
}

export interface ReadRows {
  rows: unknown[][];
  /** Reading stopped at the byte limit: more rows existed. */
  truncated: boolean;
}

/** pg's connection: its socket, and the protocol messages it emits by name (not in pg's types). */
type WireConnection = EventEmitter & { stream: Socket };

/**
 * Runs one query on `client` and reads its rows while counting the bytes they take on the wire,
 * so that the limit holds while rows arrive, not once they are all in memory. Two counts: whole
 * rows, as the protocol delivers them (exact, for a result of many rows); and the socket's bytes,
 * for a single row too large to wait for (the protocol buffers a message whole before handing it
 * on). Past the limit the connection is destroyed: nothing more is read, and PostgreSQL ends the
 * query when it next writes to the closed socket. The client is then unusable (see `lost`).
 */
export function readRows(client: pg.Client, config: pg.QueryArrayConfig, limits: ReadLimits): Promise<ReadRows> {
  const connection = client.connection as unknown as WireConnection;
  const socket = connection.stream;
  const rows: unknown[][] = [];
  let received = 0;
  let rowBytes = 0;
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    socket.destroy();
  };
  const onData = (chunk: Buffer) => {
    received += chunk.length;
    if (received > limits.maxBytes + PROTOCOL_SLACK_BYTES) stop();
  };
  // Counted before pg parses the row (prepended), so that a row past the limit is never kept.
  const onDataRow = (message: { length: number }) => {
    rowBytes += message.length;
    if (rowBytes > limits.maxBytes) stop();
  };
  socket.on('data', onData);
  connection.prependListener('dataRow', onDataRow);
  return new Promise<ReadRows>((resolve, reject) => {
    const finish = (error?: Error) => {
      socket.off('data', onData);
      connection.off('dataRow', onDataRow);
      if (!stopped) return error ? reject(error) : resolve({ rows, truncated: false });
      if (limits.partial && rows.length > 0) return resolve({ rows, truncated: true });
      reject(new ResultTooLargeError(limits.maxBytes));
    };
    const query = new pg.Query(config as pg.QueryConfig);
    // With a row listener pg keeps no rows of its own.
    query.on('row', (row: unknown[]) => {
      if (!stopped) rows.push(row);
    });
    query.once('end', () => finish());
    query.on('error', (error: Error) => finish(error));
    client.query(query);
  });
}

/** Whether reading destroyed the client's connection (it goes back to the pool only to be dropped). */
export function lost(client: pg.Client): boolean {
  return (client.connection as unknown as WireConnection).stream.destroyed;
}

function sizeOf(bytes: number): string {
  const mib = bytes / 1_048_576;
  return Number.isInteger(mib) ? `${mib} MiB (${bytes} bytes)` : `${bytes} bytes`;
}
