import { errorResponses, type ErrorStatus, type OpenApiObject } from '../../subgraphs/shared/openapi/openapi.errors.js';
import { CURRENT, pathParameterNames, placementKind, type RestRoute } from '../route-table.js';
import { operationIdOf, tagOf } from './openapi.naming.js';

/** PostHog's name for the personal API key scheme. */
export const PERSONAL_API_KEY = 'PersonalAPIKeyAuth';

/** Errors any operation may answer; keyless operations are neither unauthenticated nor throttled by key. */
const ERRORS: ErrorStatus[] = [400, 401, 403, 404, 405, 429];
const PUBLIC_ERRORS: ErrorStatus[] = [400, 403, 404, 405];

const SUCCESS: Record<number, string> = { 200: 'OK', 201: 'Created', 204: 'Deleted; no body.' };

/**
 * The operation of a route on one of its paths (its own or an alias), from SOFA's operation for
 * the route's field: path parameters from the path, write arguments in the JSON body only (never
 * a path's, its aliases' included), the route's status, PostHog's operationId and tag, the API
 * document's summary, and the bearer scheme unless the route is public.
 */
export function restOperation(sofa: OpenApiObject, route: RestRoute, path: string, schemas: OpenApiObject): OpenApiObject {
  const method = route.method.toLowerCase();
  const pathNames = [...path.matchAll(/\{([a-z_]+)\}/g)].map((found) => found[1]!);
  const routeNames = pathParameterNames(route);
  const sofaParameters: OpenApiObject[] = sofa.parameters ?? [];
  const parameters = [
    ...pathNames.map((name) => pathParameter(name, path, route, sofaParameters.find((parameter) => parameter.name === name))),
    // A GET's and a DELETE's arguments come in the query string, the others' in the body only;
    // a parameter of any of the route's paths, from a path only (`pathParameterNames`).
    ...(method === 'get' || method === 'delete' ? sofaParameters.filter((parameter) => parameter.in === 'query' && !routeNames.has(parameter.name)) : []),
  ];
  const body = requestBody(sofa.requestBody, [...routeNames]);
  const status = route.status ?? 200;
  // SOFA answers the route's status (201, 204) where the route sets one.
  const success = (sofa.responses?.[status] ?? sofa.responses?.['200'])?.content?.['application/json']?.schema;
  return {
    operationId: operationIdOf(path, method, answersList(success, schemas)),
    summary: route.summary,
    ...describe(route.description, sofa.summary),
    tags: [tagOf(path)],
    security: route.public ? [] : [{ [PERSONAL_API_KEY]: [] }],
    parameters,
    ...(body ? { requestBody: body } : {}),
    responses: {
      [status]: status === 204 || !success ? { description: SUCCESS[status] } : { description: SUCCESS[status], content: { 'application/json': { schema: success } } },
      ...(route.eventStream
        ? { 200: { description: `With \`Accept: text/event-stream\`: ${route.eventStream.description}`, content: { 'text/event-stream': { schema: { type: 'string' } } } } }
        : {}),
      ...errorResponses(route.public ? PUBLIC_ERRORS : ERRORS),
    },
  };
}

function pathParameter(name: string, path: string, route: RestRoute, fromSofa: OpenApiObject | undefined): OpenApiObject {
  const integer = name === 'project_id' || (route.integerParams ?? []).includes(name);
  const typed: OpenApiObject = fromSofa?.schema ?? (integer ? { type: 'integer', format: 'int32' } : { type: 'string' });
  const kind = placementKind(path, name);
  // An integer id's place also takes the string `@current`; a string's already does.
  const schema = kind && typed.type === 'integer' ? { anyOf: [typed, { type: 'string', enum: [CURRENT] }] } : typed;
  const description = [fromSofa?.description, kind && `\`${CURRENT}\` names the caller's current ${kind}.`].filter(Boolean).join(' ');
  return { name, in: 'path', required: true, schema, ...(description ? { description } : {}) };
}

/** SOFA's body without the path's arguments (the path carries them); none when nothing is left. */
function requestBody(body: OpenApiObject | undefined, pathNames: string[]): OpenApiObject | undefined {
  const schema: OpenApiObject | undefined = body?.content?.['application/json']?.schema;
  const properties = Object.fromEntries(Object.entries<OpenApiObject>(schema?.properties ?? {}).filter(([name]) => !pathNames.includes(name)));
  if (Object.keys(properties).length === 0) return undefined;
  const required = ((schema?.required ?? []) as string[]).filter((name) => !pathNames.includes(name));
  return {
    required: required.length > 0,
    content: { 'application/json': { schema: { type: 'object', properties, ...(required.length ? { required } : {}) } } },
  };
}

/** A GET answers a list (drf-spectacular's `list`) when it answers an array or a page of `results`. */
function answersList(success: OpenApiObject | undefined, schemas: OpenApiObject): boolean {
  if (success?.type === 'array') return true;
  const name = typeof success?.$ref === 'string' ? success.$ref.split('/').pop() : undefined;
  return name !== undefined && schemas[name]?.properties?.results?.type === 'array';
}

/** The route's own words, then the GraphQL field's description (its rules), when there are any. */
function describe(...parts: (string | undefined)[]): { description?: string } {
  const text = [...new Set(parts.filter((part): part is string => Boolean(part)))].join('\n\n');
  return text ? { description: text } : {};
}
