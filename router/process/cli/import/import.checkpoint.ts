import { open, readFile, rename, stat, truncate, writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';

/** Where an import stands: every line up to `line` is done (its events stored, or rejected). */
export interface Checkpoint {
  /** The file imported (absolute) and its size then: a checkpoint of another file is refused. */
  file: string;
  size: number;
  line: number;
  sent: number;
  rejected: number;
  /** The rejects file's length at `line`: what lies past it is written again on resume. */
  rejects_bytes: number;
}

export class CheckpointMismatch extends Error {}

/** The checkpoint to go on from, or a fresh one; a checkpoint of another file is an error. */
export async function loadCheckpoint(path: string, file: string): Promise<Checkpoint> {
  const size = (await stat(file)).size;
  const fresh: Checkpoint = { file: resolve(file), size, line: 0, sent: 0, rejected: 0, rejects_bytes: 0 };
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return fresh;
    throw error;
  }
  const saved = JSON.parse(text) as Checkpoint;
  if (saved.file !== fresh.file || saved.size !== size) {
    throw new CheckpointMismatch(`${path} belongs to another file (${saved.file}, ${saved.size} bytes); remove it to start over`);
  }
  return saved;
}

/** Written whole under another name, then renamed: a crash leaves the old checkpoint or the new one. */
export async function saveCheckpoint(path: string, checkpoint: Checkpoint): Promise<void> {
  const temporary = `${path}.tmp`;
  await writeFile(temporary, `${JSON.stringify(checkpoint)}\n`);
  const handle = await open(temporary, 'r');
  await handle.sync();
  await handle.close();
  await rename(temporary, path);
}

/**
 * The rejects file as the checkpoint knew it (created when missing): what a stopped run wrote past
 * the checkpoint is cut, since it is written again. A file shorter than that (removed, or another
 * `--rejects`) is left as it is: padding it would write NUL bytes.
 */
export async function trimRejects(path: string, bytes: number): Promise<void> {
  await writeFile(path, '', { flag: 'a' });
  if ((await stat(path)).size > bytes) await truncate(path, bytes);
}
