import { PassThrough } from 'node:stream';
import { AbortMultipartUploadCommand, DeleteObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { JsonObject } from '../../../shared/validation.js';
import type { ExportPage } from '../../formats/export-columns.js';
import { fileExtension, openFileEncoder, type FileEncoder, type FileFormat } from '../../formats/file.encoder.js';
import type { Delivery, DeliveryContext } from '../destination.js';
import { encryption, s3Client, s3Failure } from './s3.client.js';
import { manifestKey, objectKey, type KeyParts } from './s3.key.js';

/** Rows written between two looks at a file's size. */
const SLICE_ROWS = 500;

/** S3's smallest part but the last; parts are sent four at a time. */
const PART_SIZE = 5 * 1024 * 1024;

interface OpenFile {
  key: string;
  encoder: FileEncoder;
  upload: Promise<unknown>;
  /** Why the upload failed, once it has. */
  failure: unknown;
  abort(): Promise<void>;
}

/**
 * Writes a run's pages as one object, or (with `max_file_size_mb`) as numbered objects of about
 * that size and a manifest. Keys depend only on the run's interval, so an attempt that follows a
 * dead one writes the same keys over again: a run never leaves two copies. Each key is kept with
 * the run before its upload begins, so that objects of an earlier attempt that this one does not
 * write again are deleted at its end. A run without records writes nothing.
 */
export async function deliverFiles(context: DeliveryContext, pages: AsyncIterable<ExportPage>): Promise<Delivery> {
  const { config } = context;
  const bucket = String(config.bucket_name);
  const format = String(config.file_format ?? 'JSONLines') as FileFormat;
  const compression = (config.compression as string | null) ?? null;
  const maxBytes = typeof config.max_file_size_mb === 'number' ? config.max_file_size_mb * 1024 * 1024 : null;
  const parts: KeyParts = {
    prefix: String(config.prefix ?? ''),
    model: context.batchExport.model,
    start: context.run.data_interval_start,
    end: context.run.data_interval_end,
    extension: fileExtension(format, compression),
  };
  const earlier = new Set(((context.cursor?.files as string[] | undefined) ?? []).filter((key) => typeof key === 'string'));
  const client = s3Client(config);
  const written: string[] = [];
  let records = 0;
  let bytes = 0;
  let file: OpenFile | null = null;
  try {
    const close = async () => {
      // A run no longer held ends no file: the upload is left unfinished (no object) and aborted below.
      context.signal.throwIfAborted();
      await file!.encoder.finish();
      await file!.upload;
      bytes += file!.encoder.bytes;
      file = null;
    };
    for await (const page of pages) {
      // Slices of a page, so that a file ends close to max_file_size_mb rather than at a page's end.
      for (let offset = 0; offset < page.rows.length; offset += SLICE_ROWS) {
        if (!file) {
          const key = objectKey(parts, maxBytes === null ? null : written.length);
          written.push(key);
          await context.saveCursor({ files: [...new Set([...earlier, ...written])] });
          file = openObject(client, bucket, key, config, format, compression, context);
        }
        const rows = page.rows.slice(offset, offset + SLICE_ROWS);
        await file.encoder.write({ columns: page.columns, rows });
        records += rows.length;
        if (maxBytes !== null && file.encoder.bytes >= maxBytes) await close();
      }
    }
    if (file) await close();
    if (maxBytes !== null && written.length > 0) {
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: manifestKey(parts), Body: JSON.stringify({ files: written }), ContentType: 'application/json', ...encryption(config) }), { abortSignal: context.signal });
    }
    for (const key of earlier) {
      if (!written.includes(key)) await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }), { abortSignal: context.signal });
    }
    return { records, bytes, cursor: { files: written } };
  } catch (error) {
    const open = file as OpenFile | null;
    await open?.abort();
    // The store's words when its upload failed, not those of the stream that stopped for it.
    throw s3Failure(open?.failure ?? error, bucket);
  } finally {
    client.destroy();
  }
}

function openObject(client: S3Client, bucket: string, key: string, config: JsonObject, format: FileFormat, compression: string | null, context: DeliveryContext): OpenFile {
  const body = new PassThrough({ highWaterMark: PART_SIZE });
  const controller = new AbortController();
  const stop = () => controller.abort();
  if (context.signal.aborted) controller.abort();
  else context.signal.addEventListener('abort', stop, { once: true });
  const upload = new Upload({
    client,
    params: { Bucket: bucket, Key: key, Body: body, ContentType: format === 'Parquet' ? 'application/vnd.apache.parquet' : 'application/jsonl', ...encryption(config) },
    partSize: PART_SIZE,
    queueSize: 4,
    // The store's own error, not that of an abort some stores do not implement.
    leavePartsOnError: true,
    abortController: controller,
  });
  const done = upload.done();
  void done.catch(() => undefined).finally(() => context.signal.removeEventListener('abort', stop));
  const file: OpenFile = {
    key,
    encoder: openFileEncoder(format, compression, context.columns, body),
    upload: done,
    failure: null,
    async abort() {
      body.destroy();
      await upload.abort().catch(() => undefined);
      await done.catch(() => undefined);
      // With leavePartsOnError the SDK keeps the parts sent: they are billed until aborted.
      const uploadId = (upload as unknown as { uploadId?: string }).uploadId;
      if (uploadId) await client.send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId })).catch(() => undefined);
    },
  };
  // A failed upload stops the encoder writing into a stream nobody reads.
  done.catch((error: unknown) => {
    file.failure = error;
    body.destroy(error as Error);
  });
  return file;
}
