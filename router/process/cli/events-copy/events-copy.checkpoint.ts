import { open, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ClickHouseTarget } from '../../../../subgraphs/shared/clickhouse/clickhouse-url.js';
import type { EventCopyKey } from '../../../../subgraphs/ingestion/facade.js';

/** How far an environment's copy went: every event up to `after` is in ClickHouse. */
export interface EnvironmentProgress {
  after: EventCopyKey;
  /** Events read from PostgreSQL so far (inserted, or found in ClickHouse already). */
  read: number;
  inserted: number;
}

/**
 * Where a copy stands, kept in a file rather than a table: it is the copy's own state, not the
 * installation's (no migration on either store for a one-off command), it is read and written by
 * one process, and it can be removed or kept by hand like the importer's. It names the ClickHouse
 * it describes, so that a copy into another one starts from the first event.
 */
export interface CopyCheckpoint {
  destination: string;
  /** By environment id. */
  environments: Record<string, EnvironmentProgress>;
  /** The environments whose persons, distinct ids and groups were written into ClickHouse's mirror after their events. */
  mirrored?: number[];
}

/** Raised when the checkpoint describes a copy into another ClickHouse. */
export class CheckpointMismatch extends Error {}

/** The ClickHouse a checkpoint describes, without its password. */
export function destinationOf(target: ClickHouseTarget): string {
  return target.kind === 'http' ? `${target.url}/${target.database}` : `chdb:${resolve(target.path)}?database=${target.database}`;
}

/** The checkpoint to go on from, or a fresh one; one of another ClickHouse is an error. */
export async function loadCheckpoint(path: string, destination: string): Promise<CopyCheckpoint> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { destination, environments: {} };
    throw error;
  }
  const saved = JSON.parse(text) as CopyCheckpoint;
  if (saved.destination !== destination) {
    throw new CheckpointMismatch(`${path} belongs to a copy into ${saved.destination}; pass --restart (or another --checkpoint) to copy into ${destination}`);
  }
  return saved;
}

/** Written whole under another name, synced, then renamed: a crash leaves the old checkpoint or the new one. */
export async function saveCheckpoint(path: string, checkpoint: CopyCheckpoint): Promise<void> {
  const temporary = `${path}.tmp`;
  await writeFile(temporary, `${JSON.stringify(checkpoint)}\n`);
  const handle = await open(temporary, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(temporary, path);
}

export async function removeCheckpoint(path: string): Promise<void> {
  await rm(path, { force: true });
}
