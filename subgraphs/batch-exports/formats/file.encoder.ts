import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { constants, createBrotliCompress, createGzip, brotliCompressSync, gzipSync } from 'node:zlib';
import type { ExportColumn, ExportPage } from './export-columns.js';
import { jsonLinesEncoder } from './jsonlines.encoder.js';
import { parquetFile } from './parquet.encoder.js';

export const FILE_FORMATS = ['JSONLines', 'Parquet'] as const;
export type FileFormat = (typeof FILE_FORMATS)[number];

/** The compressions each format takes (PostHog's lists, less the codecs no JavaScript writer here has). */
export const COMPRESSIONS: Record<FileFormat, readonly string[]> = {
  JSONLines: ['gzip', 'brotli'],
  Parquet: ['snappy', 'gzip', 'brotli'],
};

/** PostHog's file extensions: `jsonl`/`parquet`, then the codec's. */
export function fileExtension(format: FileFormat, compression: string | null): string {
  const base = format === 'Parquet' ? 'parquet' : 'jsonl';
  const codec = compression ? { gzip: 'gz', brotli: 'br', snappy: 'sz' }[compression] : null;
  return codec ? `${base}.${codec}` : base;
}

/** Fast brotli: its default (quality 11) is far too slow for an export's volume. */
const BROTLI_QUALITY = 4;

/** A file being written: pages go in, bytes of the chosen format and compression go to `out`. */
export interface FileEncoder {
  write(page: ExportPage): Promise<void>;
  /** Writes what is left (the Parquet footer, the compressor's tail) and ends `out`. */
  finish(): Promise<void>;
  /** Bytes handed to `out` so far. */
  readonly bytes: number;
}

/** Counts what reaches `out` and waits when it is full; fails once `out` takes nothing more (its reader failed or went). */
class Sink {
  bytes = 0;

  constructor(readonly out: Writable) {}

  async write(chunk: Uint8Array | string): Promise<void> {
    if (this.out.destroyed) throw this.stopped();
    this.bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.byteLength;
    if (!this.out.write(chunk)) await this.drained();
  }

  async end(): Promise<void> {
    if (this.out.destroyed) throw this.stopped();
    this.out.end();
    await finished(this.out, { readable: false });
  }

  private drained(): Promise<void> {
    return new Promise((resolve, reject) => {
      const settle = (error?: Error) => {
        this.out.off('drain', onDrain).off('close', onClose).off('error', settle);
        if (error) reject(error);
        else resolve();
      };
      const onDrain = () => settle();
      const onClose = () => settle(this.stopped());
      this.out.on('drain', onDrain).on('close', onClose).on('error', settle);
    });
  }

  private stopped(): Error {
    return this.out.errored ?? new Error('The destination stopped reading the file.');
  }
}

export function openFileEncoder(format: FileFormat, compression: string | null, columns: ExportColumn[], out: Writable): FileEncoder {
  return format === 'Parquet' ? parquetEncoder(compression, columns, new Sink(out)) : jsonLinesFile(compression, columns, new Sink(out));
}

function jsonLinesFile(compression: string | null, columns: ExportColumn[], sink: Sink): FileEncoder {
  const encode = jsonLinesEncoder(columns);
  const compressor =
    compression === 'gzip'
      ? createGzip({ level: 6 })
      : compression === 'brotli'
        ? createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT } })
        : null;
  // The compressor's output is counted as it reaches the sink; a full sink holds the compressor
  // back, and a sink that fails stops the writes waiting on the compressor.
  const piped = compressor
    ? (async () => {
        for await (const chunk of compressor) await sink.write(chunk as Buffer);
      })().catch((error: unknown) => {
        compressor.destroy();
        throw error;
      })
    : null;
  piped?.catch(() => undefined);
  return {
    get bytes() {
      return sink.bytes;
    },
    async write(page) {
      const text = encode(page.rows);
      if (!compressor) return sink.write(text);
      if (!compressor.write(text)) await Promise.race([once(compressor, 'drain'), piped]);
    },
    async finish() {
      if (compressor) {
        compressor.end();
        await piped;
      }
      await sink.end();
    },
  };
}

/** A row group holds at most this many rows, or about this many bytes of values. */
const ROW_GROUP_ROWS = 10_000;
const ROW_GROUP_BYTES = 4 * 1024 * 1024;

function parquetEncoder(compression: string | null, columns: ExportColumn[], sink: Sink): FileEncoder {
  const file = parquetFile(columns, compression, {
    GZIP: (bytes: Uint8Array) => gzipSync(bytes, { level: 6 }),
    BROTLI: (bytes: Uint8Array) => brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } }),
  }, (chunk) => sink.write(chunk));
  // Rows wait for a row group of a good size; their size is reckoned from their values.
  let pending: unknown[][] = [];
  let pendingBytes = 0;
  const flush = async () => {
    const rows = pending;
    pending = [];
    pendingBytes = 0;
    await file.write(rows);
  };
  return {
    get bytes() {
      return sink.bytes + pendingBytes;
    },
    async write(page) {
      for (const row of page.rows) {
        pending.push(row);
        for (const value of row) pendingBytes += typeof value === 'string' ? value.length : 8;
        if (pending.length >= ROW_GROUP_ROWS || pendingBytes >= ROW_GROUP_BYTES) await flush();
      }
    },
    async finish() {
      await flush();
      await file.finish();
      await sink.end();
    },
  };
}
