import type { GraphQLSchema } from 'graphql';
import { AppError, contractError, MethodNotAllowedError } from '../../subgraphs/shared/errors.js';
import type { Logger } from '../../subgraphs/shared/logger.js';
import { typedBody } from '../body-types.js';
import { errorResponse } from '../errors.js';
import type { RouterExecutor } from '../rest.js';
import { readIngestBody } from './ingest-body.js';
import { batchVariables } from './ingest-envelope.js';

/** The operation `/batch/` runs: the ingestion subgraph's, through the router like every REST path. */
export const INGEST_FIELD = 'Mutation.ingest_batch';
const INGEST_BATCH = `mutation ($api_key: String, $historical_migration: Boolean, $sent_at: String, $batch: [JSON]!) {
  ingest_batch(api_key: $api_key, historical_migration: $historical_migration, sent_at: $sent_at, batch: $batch) { status }
}`;

/** Capture is called from browsers too: any origin may post (the project API key is public by design). */
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, OPTIONS',
  'access-control-allow-headers': 'content-type, content-encoding',
  'access-control-max-age': '86400',
};

export interface IngestOptions {
  /** The public schema, to read body fields as DRF does (`"true"` is true). */
  schema: GraphQLSchema;
  execute: RouterExecutor;
  log: Logger;
  /** Largest body once inflated. */
  maxBodyBytes: number;
}

/**
 * `POST {ingest_url}/batch/`: PostHog's capture request shapes turned into one `ingest_batch`
 * mutation, sent with no personal key (the project API key in the body is the credential). The
 * answer is PostHog's `{"status": "Ok"}`, sent once the batch is committed; failures carry the
 * contract's error body.
 */
export function createIngest(options: IngestOptions): (request: Request) => Promise<Response> {
  return async (request) => {
    if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: CORS });
    if (request.method !== 'POST') return fail(new MethodNotAllowedError(request.method), { allow: 'POST, OPTIONS' });
    try {
      const body = await readIngestBody(request, options.maxBodyBytes);
      const variables = typedBody(options.schema, INGEST_FIELD, batchVariables(body) as unknown as Record<string, unknown>);
      const result = await options.execute({ query: INGEST_BATCH, variables, authorization: null });
      if (result.errors?.length) {
        const { status, body: error } = contractError(result.errors[0]!);
        if (status >= 500) options.log.error({ errors: result.errors }, 'batch ingestion failed');
        return errorResponse(status, error, CORS);
      }
      return Response.json({ status: 'Ok' }, { headers: CORS });
    } catch (error) {
      if (error instanceof AppError) return fail(error);
      throw error;
    }
  };
}

function fail(error: AppError, headers: Record<string, string> = {}): Response {
  const { status, body } = contractError(error);
  return errorResponse(status, body, { ...CORS, ...headers });
}
