import { AppError, contractError, MethodNotAllowedError, retryAfterHeader } from '../../subgraphs/shared/errors.js';
import { INGEST_METHODS, type ReadRequest } from '../../subgraphs/shared/http.js';
import type { Logger } from '../../subgraphs/shared/logger.js';
import { errorResponse } from '../errors.js';
import type { RouterExecutor } from '../router.ports.js';
import { readIngestText } from './ingest-body.reader.js';

/** The operation `/batch/` runs: the ingestion subgraph's, through the router like every REST path. */
export const INGEST_FIELD = 'Mutation.ingest_payload';
const INGEST_PAYLOAD = 'mutation ($payload: String!) { ingest_payload(payload: $payload) { status } }';

/** Capture is called from browsers too: any origin may post (the project API key is public by design). */
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': INGEST_METHODS.join(', '),
  'access-control-allow-headers': 'content-type, content-encoding',
  'access-control-max-age': '86400',
};

export interface IngestOptions {
  execute: RouterExecutor;
  log: Logger;
  /** Largest body once inflated. */
  maxBodyBytes: number;
}

/**
 * `POST {ingest_url}/batch/`: the request's JSON, unwrapped from its transport encoding, becomes
 * one `ingest_payload` mutation, sent with no personal key (the project API key in the body is the
 * credential). The JSON crosses the router as one string and is parsed once, in the ingestion
 * subgraph, which knows PostHog's request shapes (parsing it here and passing events as objects
 * costs the router a walk over every value). The answer is PostHog's `{"status": "Ok"}`, sent once the batch is
 * committed; failures carry the contract's error body.
 */
export function createIngest(options: IngestOptions): (request: ReadRequest) => Promise<Response> {
  return async (request) => {
    if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: CORS });
    if (request.method !== 'POST') return fail(new MethodNotAllowedError(request.method), { allow: INGEST_METHODS.join(', ') });
    try {
      const payload = await readIngestText(request, options.maxBodyBytes);
      const result = await options.execute({ query: INGEST_PAYLOAD, variables: { payload }, authorization: null });
      if (result.errors?.length) {
        const { status, body: error } = contractError(result.errors[0]!);
        if (status >= 500) options.log.error({ errors: result.errors }, 'batch ingestion failed');
        return errorResponse(status, error, { ...CORS, ...retryAfterHeader(result.errors[0]) });
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
