import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';

/**
 * Local stand-ins for the destinations of batch exports, and their configs (no test runner here:
 * the benchmarks use them too).
 */

/** s3rver knows one access key. */
export const S3_KEYS = { aws_access_key_id: 'S3RVER', aws_secret_access_key: 'S3RVER' };

/** An S3-protocol server on a free port (s3rver, a local stand-in for the object store), with a bucket. */
export interface S3Store {
  url: string;
  bucket: string;
  client: S3Client;
  keys(prefix?: string): Promise<string[]>;
  read(key: string): Promise<Buffer>;
  stop(): Promise<void>;
}

export async function startS3(bucket = 'exports'): Promise<S3Store> {
  const directory = mkdtempSync(join(tmpdir(), 's3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, directory, silent: true, resetOnClose: true, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = (await server.run()) as unknown as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const client = new S3Client({
    endpoint: url,
    region: 'us-east-1',
    forcePathStyle: true,
    credentials: { accessKeyId: S3_KEYS.aws_access_key_id, secretAccessKey: S3_KEYS.aws_secret_access_key },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  return {
    url,
    bucket,
    client,
    async keys(prefix = '') {
      // Large pages: s3rver's continuation tokens need a cipher OpenSSL 3 no longer has.
      const listed = await client.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, MaxKeys: 10_000 }));
      return (listed.Contents ?? []).map((object) => object.Key!).sort();
    },
    async read(key) {
      const object = await client.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
      return Buffer.from(await object.Body!.transformToByteArray());
    },
    async stop() {
      client.destroy();
      await server.close().catch(() => undefined);
      rmSync(directory, { recursive: true, force: true });
    },
  };
}

/** An S3 destination of the store, with these fields over the defaults. */
export function s3Destination(store: S3Store, config: Record<string, unknown> = {}) {
  return { type: 'S3', config: { bucket_name: store.bucket, region: 'us-east-1', prefix: 'events', endpoint_url: store.url, ...S3_KEYS, ...config } };
}

/** A PostgreSQL destination on a database of the test server. */
export function postgresDestination(databaseUrl: string, config: Record<string, unknown> = {}) {
  const url = new URL(databaseUrl);
  return {
    type: 'Postgres',
    config: { host: url.hostname, port: Number(url.port || 5432), database: url.pathname.slice(1), user: decodeURIComponent(url.username), password: decodeURIComponent(url.password) || 'unused', schema: 'public', table_name: 'events', sslmode: 'disable', ...config },
  };
}
