import { ValidationError } from '../../shared/errors.js';
import type { Destination } from './destination.js';
import { httpDestination } from './http/http.destination.js';
import { postgresDestination } from './postgres/postgres.destination.js';
import { s3Destination } from './s3/s3.destination.js';

/** The destination types a batch export may have. */
export const DESTINATIONS: readonly Destination[] = [s3Destination, postgresDestination, httpDestination];

/** PostHog's other destination types: named, so that they are refused as unsupported rather than unknown. */
const UNSUPPORTED = ['AwsS3', 'S3Compatible', 'Snowflake', 'Redshift', 'BigQuery', 'Databricks', 'AzureBlob', 'Workflows', 'NoOp', 'FileDownload'];

export function destinationOf(type: string): Destination | undefined {
  return DESTINATIONS.find((destination) => destination.type === type);
}

/** The destination of a type a request names; 400 for any other. */
export function requireDestination(type: unknown): Destination {
  const destination = typeof type === 'string' ? destinationOf(type) : undefined;
  if (destination) return destination;
  const supported = DESTINATIONS.map((known) => known.type).join(', ');
  if (typeof type === 'string' && UNSUPPORTED.includes(type)) {
    throw new ValidationError(`The '${type}' destination is not supported by this platform. Supported destinations are: ${supported}.`, 'destination__type');
  }
  throw new ValidationError(`"${String(type)}" is not a valid choice. Supported destinations are: ${supported}.`, 'destination__type', 'invalid_choice');
}
