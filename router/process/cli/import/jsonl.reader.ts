import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';

/** A line of the file, numbered from 1, with how far into the file reading had got. */
export interface FileLine {
  number: number;
  text: string;
}

/**
 * The lines of a JSON-lines file, gzipped or not (told by its first bytes, not its name), read as
 * a stream: a file of any size takes the memory of a few lines. `progress` tells how many of the
 * file's own bytes (compressed, for gzip) have been read.
 */
export async function* readLines(path: string, progress: (bytesRead: number) => void): AsyncGenerator<FileLine> {
  const gzip = await isGzip(path);
  // Everything attached before the stream flows: a 'data' listener starts it at once.
  const raw = createReadStream(path);
  const input = gzip ? raw.pipe(createGunzip()) : raw;
  raw.on('data', () => progress(raw.bytesRead));
  raw.on('error', (error) => input.destroy(error));
  let number = 0;
  for await (const text of createInterface({ input, crlfDelay: Infinity })) {
    number++;
    if (text.trim() !== '') yield { number, text };
  }
}

async function isGzip(path: string): Promise<boolean> {
  const file = await open(path);
  try {
    const { buffer, bytesRead } = await file.read(Buffer.alloc(2), 0, 2, 0);
    return bytesRead === 2 && buffer[0] === 0x1f && buffer[1] === 0x8b;
  } finally {
    await file.close();
  }
}
