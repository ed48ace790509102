import { STATUS_CODES } from 'node:http';
import { S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { outboundAgents } from '../../../shared/outbound-agent.js';
import type { JsonObject } from '../../../shared/validation.js';
import { refusedAddress } from '../destination-address.js';
import { DestinationError } from '../destination.js';

// The SDK is pinned at a version that supports Node.js 20; its warning about later versions says nothing of this one.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

/**
 * A client of the config's store. Credentials come from the config only: never the platform's own
 * (environment, instance role), which would let an export write wherever the server may. Checksums
 * only where the operation requires one, as S3-compatible stores expect.
 */
export function s3Client(config: JsonObject): S3Client {
  const endpoint = typeof config.endpoint_url === 'string' && config.endpoint_url ? config.endpoint_url : undefined;
  const agents = outboundAgents();
  return new S3Client({
    region: String(config.region),
    endpoint,
    forcePathStyle: endpoint !== undefined && config.use_virtual_style_addressing !== true,
    credentials: { accessKeyId: String(config.aws_access_key_id ?? ''), secretAccessKey: String(config.aws_secret_access_key ?? '') },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 3,
    // A store that stops answering fails the request (and the run is tried again) instead of holding the run.
    // Sockets go only where the outbound policy allows (the endpoint and the bucket's host alike).
    requestHandler: { connectionTimeout: 10_000, requestTimeout: 120_000, httpAgent: agents.http, httpsAgent: agents.https },
  });
}

const RETRYABLE_CODES = new Set(['RequestTimeout', 'SlowDown', 'InternalError', 'ServiceUnavailable', 'Throttling', 'ThrottlingException', 'RequestTimeTooSkewed']);

/**
 * A store's failure: its error code and status, never the rest of what it answered (an endpoint
 * may be any server). Its refusals (credentials, a missing bucket, access denied) end the run;
 * throttling, its 5xx and the network are tried again.
 */
export function s3Failure(error: unknown, bucket: string): DestinationError {
  if (error instanceof DestinationError) return error;
  const refused = refusedAddress(error);
  if (refused) return refused;
  if (error instanceof S3ServiceException) {
    const status = error.$metadata?.httpStatusCode ?? 0;
    const retryable = status >= 500 || status === 429 || RETRYABLE_CODES.has(error.name);
    const name = /^[A-Za-z0-9.]{1,64}$/.test(error.name) ? error.name : 'UnknownError';
    return new DestinationError(`${name}: the store answered ${status} ${STATUS_CODES[status] ?? ''}`.trimEnd() + ` (bucket '${bucket}')`, retryable);
  }
  const { code, message } = error as { code?: string; message?: string };
  return new DestinationError(`${code ?? 'Error'}: ${message ?? String(error)} (bucket '${bucket}')`, true);
}

/** The server-side encryption a config asks for, as PutObject and uploads take it. */
export function encryption(config: JsonObject): { ServerSideEncryption?: 'AES256' | 'aws:kms'; SSEKMSKeyId?: string } {
  if (config.encryption !== 'AES256' && config.encryption !== 'aws:kms') return {};
  return { ServerSideEncryption: config.encryption, ...(config.encryption === 'aws:kms' && config.kms_key_id ? { SSEKMSKeyId: String(config.kms_key_id) } : {}) };
}
