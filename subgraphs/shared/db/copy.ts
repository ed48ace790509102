import type { EntityManager } from '@mikro-orm/postgresql';
import type pg from 'pg';
import copyStreams from 'pg-copy-streams';
import { once } from 'node:events';

/** A value in PostgreSQL's COPY text format: backslash, tab and line ends escaped. */
export function copyText(text: string): string {
  // Four searches for a character are several times faster than one regular expression's test.
  const plain = !text.includes('\\') && !text.includes('\n') && !text.includes('\r') && !text.includes('\t');
  return plain ? text : text.replace(COPY_SPECIALS, (char) => COPY_ESCAPES[char]!);
}

const COPY_SPECIALS = /[\\\n\r\t]/g;
const COPY_ESCAPES: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * Rows of text fields as COPY text, escaped and written straight into one buffer: a string of
 * megabytes joined from thousands of parts is slow to turn into bytes (it must be flattened first).
 */
export function copyRows(rows: readonly (readonly string[])[]): Buffer {
  const escaped = rows.map((row) => row.map(copyText));
  let size = 0;
  for (const row of escaped) for (const field of row) size += Buffer.byteLength(field) + 1;
  const buffer = Buffer.allocUnsafe(size);
  let offset = 0;
  for (const row of escaped) {
    row.forEach((field, index) => {
      offset += buffer.write(field, offset);
      buffer[offset++] = index === row.length - 1 ? LINE_FEED : TAB;
    });
  }
  return buffer;
}

const TAB = 0x09;
const LINE_FEED = 0x0a;

/**
 * `COPY <target> FROM STDIN` of `lines` (COPY text, `copyRows`) on the connection of the
 * EntityManager's transaction, which it needs. COPY writes rows a page at a time (one WAL record a
 * page, through a ring of buffers of its own), where an INSERT writes them one at a time through the
 * shared buffers: a large batch costs PostgreSQL less this way (measured in
 * test/bench/RESULTS.md).
 */
export async function copyInto(em: EntityManager, target: string, lines: Buffer): Promise<void> {
  const transaction = em.getTransactionContext<{ client: { acquireConnection(): Promise<pg.Client> } }>();
  if (!transaction) throw new Error(`COPY ${target} needs a transaction`);
  const client = await transaction.client.acquireConnection();
  const { stream, failed } = copyFrom(client, `COPY ${target} FROM STDIN`);
  stream.end(lines);
  await Promise.race([once(stream, 'finish'), failed]);
}

/** A `COPY … FROM STDIN` stream on the client, and a promise that rejects with its first error. */
export function copyFrom(client: pg.Client, statement: string): { stream: CopyStreamQuery; failed: Promise<never> } {
  const stream = client.query(copyStreams.from(statement));
  // A refusal that comes while data is still being written is followed by a second error (the
  // stream writes on to a connection it has let go): the first is the one to answer, and a second
  // with no listener would end the process.
  stream.on('error', () => undefined);
  const failed = once(stream, 'error').then(([error]) => {
    throw error;
  });
  failed.catch(() => undefined);
  return { stream, failed };
}

type CopyStreamQuery = ReturnType<typeof copyStreams.from>;
