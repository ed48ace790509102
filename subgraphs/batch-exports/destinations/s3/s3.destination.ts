import { DeleteObjectCommand, HeadBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { ValidationError } from '../../../shared/errors.js';
import type { JsonObject } from '../../../shared/validation.js';
import { COMPRESSIONS, FILE_FORMATS, type FileFormat } from '../../formats/file.encoder.js';
import { EVENT_FILTERS, type ConfigField } from '../destination-config.js';
import { refusedAddress, urlTargets } from '../destination-address.js';
import { DestinationError, type Destination, type TestStep } from '../destination.js';
import { encryption, s3Client, s3Failure } from './s3.client.js';
import { deliverFiles } from './s3.files.js';


export const S3_FIELDS: readonly ConfigField[] = [
  { name: 'bucket_name', type: 'string', required: true, description: 'The bucket.' },
  { name: 'region', type: 'string', required: true, description: "The bucket's region (any value a compatible store takes)." },
  { name: 'prefix', type: 'string', default: '', description: 'Key prefix; may hold {year}, {month}, {day}, {hour}, {minute}, {second}, {table}, {data_interval_start}, {data_interval_end}.' },
  { name: 'aws_access_key_id', type: 'string', required: true, secret: true, description: 'Access key id (write-only).' },
  { name: 'aws_secret_access_key', type: 'string', required: true, secret: true, description: 'Secret access key (write-only).' },
  { name: 'endpoint_url', type: 'string', description: 'Address of an S3-compatible store (path-style addressing unless use_virtual_style_addressing).' },
  { name: 'use_virtual_style_addressing', type: 'boolean', default: false, description: 'Bucket in the host name rather than the path.' },
  { name: 'file_format', type: 'string', default: 'JSONLines', choices: FILE_FORMATS, description: '`JSONLines` or `Parquet`.' },
  { name: 'compression', type: 'string', choices: [null, 'gzip', 'brotli', 'snappy'], description: 'JSONLines: `gzip` or `brotli`; Parquet: `snappy`, `gzip` or `brotli`; none by default.' },
  { name: 'max_file_size_mb', type: 'integer', description: 'Split a run into files of about this many MB (with a manifest); one file per run when absent.' },
  { name: 'encryption', type: 'string', choices: [null, 'AES256', 'aws:kms'], description: 'Server-side encryption.' },
  { name: 'kms_key_id', type: 'string', description: 'KMS key for `aws:kms` encryption.' },
  ...EVENT_FILTERS,
];

const TEST_STEPS: readonly TestStep[] = [
  {
    name: 'Check S3 bucket exists',
    description: 'Ensure the configured S3 bucket exists and that we have the required permissions to access it.',
    async run(config, signal) {
      const bucket = String(config.bucket_name);
      const client = s3Client(config);
      try {
        await client.send(new HeadBucketCommand({ Bucket: bucket }), { abortSignal: signal });
      } catch (error) {
        const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
        if (status === 404) throw new DestinationError(`Bucket '${bucket}' does not exist or we don't have permissions to use it`, false);
        if (status === 403) throw new DestinationError(`We couldn't access bucket '${bucket}'. Check the provided credentials, endpoint, and whether the necessary permissions to access the bucket have been granted`, false);
        throw refusedAddress(error) ?? new DestinationError(`An unknown error occurred when trying to access bucket '${bucket}': ${s3Failure(error, bucket).message}`, false);
      } finally {
        client.destroy();
      }
    },
  },
  {
    name: 'Write a test object',
    description: 'Ensure we can write an object under the configured prefix, then delete it again.',
    async run(config, signal) {
      const bucket = String(config.bucket_name);
      const prefix = String(config.prefix ?? '');
      const key = `${prefix}${prefix === '' || prefix.endsWith('/') ? '' : '/'}batch-export-test-${Date.now()}.txt`.replace(/^\/+/, '');
      const client = s3Client(config);
      try {
        await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: 'batch export test object', ...encryption(config) }), { abortSignal: signal });
        await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: key }), { abortSignal: signal });
      } catch (error) {
        throw s3Failure(error, bucket);
      } finally {
        client.destroy();
      }
    },
  },
];

/** S3 and any store that speaks its protocol: one file per run (or per size split), multipart uploads. */
export const s3Destination: Destination = {
  type: 'S3',
  fields: S3_FIELDS,
  models: ['events', 'persons'],
  targetFields: ['endpoint_url'],
  targets: (config) => urlTargets('endpoint_url', config.endpoint_url),
  takesQuery: true,
  eventsQuery: 'SELECT uuid, timestamp, _inserted_at, created_at, event, properties, distinct_id, elements_chain, person_properties, person_id FROM events',
  check(config: JsonObject) {
    const empty = ['bucket_name', 'region'].filter((name) => typeof config[name] === 'string' && (config[name] as string).trim() === '');
    if (empty.length > 0) throw new ValidationError(`The following inputs are empty: [${empty.map((name) => `'${name}'`).join(', ')}]`, 'destination');
    const format = (config.file_format ?? 'JSONLines') as FileFormat;
    const compression = config.compression as string | null | undefined;
    if (compression && !COMPRESSIONS[format].includes(compression)) {
      throw new ValidationError(`Compression ${compression} is not supported for file format ${format}. Supported compressions are [${COMPRESSIONS[format].map((name) => `'${name}'`).join(', ')}]`, 'destination');
    }
    if (config.max_file_size_mb !== null && config.max_file_size_mb !== undefined && (config.max_file_size_mb as number) < 1) {
      throw new ValidationError('max_file_size_mb must be at least 1.', 'destination');
    }
    if (typeof config.endpoint_url === 'string' && config.endpoint_url && !isHttpUrl(config.endpoint_url)) {
      throw new ValidationError(`Invalid endpoint_url: ${config.endpoint_url}`, 'destination');
    }
  },
  deliver: deliverFiles,
  testSteps: TEST_STEPS,
};

export function isHttpUrl(text: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(text).protocol);
  } catch {
    return false;
  }
}
