import { isBearer, KEY_PARAMETER } from '../subgraphs/shared/auth/key-parameter.js';
import { UNKNOWN_PERSONAL_KEY } from '../subgraphs/shared/errors.js';

/** Where a REST request's personal API key was found, in the words of PostHog's 401. */
export type KeySource = 'Authorization header' | 'body' | 'query string';

export interface RestCredential {
  /** What the router authenticates: the Authorization header, or the key found elsewhere as a Bearer one. */
  authorization: string | null;
  source: KeySource;
}

/**
 * A REST request's personal API key, looked for where PostHog looks: the Authorization header,
 * then a `personal_api_key` field of the JSON body, then a `personal_api_key` query parameter.
 */
export function restCredential(headers: Headers, body: Record<string, unknown> | undefined, query: URLSearchParams): RestCredential {
  const header = headers.get('authorization');
  if (header && isBearer(header)) return { authorization: header, source: 'Authorization header' };
  const fromBody = body?.[KEY_PARAMETER];
  if (typeof fromBody === 'string' && fromBody !== '') return { authorization: `Bearer ${fromBody}`, source: 'body' };
  const fromQuery = query.get(KEY_PARAMETER);
  if (fromQuery) return { authorization: `Bearer ${fromQuery}`, source: 'query string' };
  return { authorization: null, source: 'Authorization header' };
}

/** A 401 for an unknown key names where it was found, as PostHog's does ("… found in request body is invalid."). */
export async function namingKeySource(response: Response, source: KeySource): Promise<Response> {
  if (source === 'Authorization header' || response.status !== 401) return response;
  const body = (await response.json()) as { detail?: unknown };
  if (body.detail === UNKNOWN_PERSONAL_KEY) body.detail = UNKNOWN_PERSONAL_KEY.replace('Authorization header', source);
  return Response.json(body, { status: 401, headers: response.headers });
}
