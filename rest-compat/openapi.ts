import type { RestRoute } from './route-table.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- OpenAPI documents are free-form JSON
type Json = Record<string, any>;

const ERROR_SCHEMA = {
  type: 'object',
  description: 'Every error: PostHog\'s flat error body.',
  required: ['type', 'code', 'detail', 'attr'],
  properties: {
    type: { type: 'string', enum: ['validation_error', 'authentication_error', 'invalid_request', 'throttled_error', 'server_error'] },
    code: { type: 'string', example: 'not_found' },
    detail: { type: 'string', example: 'Not found.' },
    attr: { type: 'string', nullable: true, description: 'The field at fault, for validation errors.' },
  },
};

const ERROR_RESPONSES: Record<string, string> = {
  '400': 'Bad input: `attr` names the field.',
  '401': 'No or unknown credentials.',
  '403': 'Missing scope, or no access to the organization or project.',
  '404': 'No such object where the caller has access.',
};

/**
 * SOFA's OpenAPI document, made to describe what callers actually use: paths under `/api` with
 * the trailing slash, write arguments in a JSON body only, no body on 204, the bearer scheme and
 * the contract's error responses.
 */
export function shapeOpenApi(document: Json, routes: RestRoute[], prefix: string): Json {
  const paths: Json = {};
  for (const [path, operations] of Object.entries<Json>(document.paths ?? {})) {
    const shaped: Json = {};
    for (const [method, operation] of Object.entries<Json>(operations)) {
      const route = routes.find((candidate) => candidate.method === method.toUpperCase() && openApiPath(candidate.path) === path);
      shaped[method] = shapeOperation(operation, method, route);
    }
    paths[`${prefix}${path}/`] = shaped;
  }
  for (const route of routes) {
    const operation = paths[`${prefix}${openApiPath(route.path)}/`]?.[route.method.toLowerCase()];
    for (const alias of operation ? (route.aliases ?? []) : []) {
      const aliasPath = `${prefix}${openApiPath(alias)}/`;
      paths[aliasPath] = { ...paths[aliasPath], [route.method.toLowerCase()]: aliasOperation(operation, route.path, alias) };
    }
  }
  return {
    ...document,
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    components: {
      ...document.components,
      schemas: { ...document.components?.schemas, Error: ERROR_SCHEMA },
      securitySchemes: { PersonalApiKey: { type: 'http', scheme: 'bearer', description: 'A personal API key: `Bearer phx_…`.' } },
    },
    security: [{ PersonalApiKey: [] }],
  };
}

function shapeOperation(operation: Json, method: string, route: RestRoute | undefined): Json {
  const shaped = { ...operation };
  if (method !== 'get' && method !== 'delete') {
    shaped.parameters = (operation.parameters ?? []).filter((parameter: Json) => parameter.in === 'path');
  }
  const responses: Json = { ...operation.responses };
  if (route?.status === 204) responses['204'] = { description: 'Deleted; no body.' };
  if (route?.eventStream) responses['200'] = { description: `With \`Accept: text/event-stream\`: ${route.eventStream.description}`, content: { 'text/event-stream': { schema: { type: 'string' } } } };
  for (const [status, description] of Object.entries(ERROR_RESPONSES)) {
    responses[status] = { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  }
  shaped.responses = responses;
  return shaped;
}

/** The operation on an alias path: the parameters its own path lacks come from the alias's path. */
function aliasOperation(operation: Json, path: string, alias: string): Json {
  const extra = (alias.match(/:[a-z_]+/g) ?? []).map((param) => param.slice(1)).filter((name) => !path.includes(`:${name}`));
  const kept = (operation.parameters ?? []).filter((parameter: Json) => !extra.includes(parameter.name));
  const added = extra.map((name) => ({ name, in: 'path', required: true, schema: { type: 'integer', format: 'int32' } }));
  return { ...operation, operationId: operation.operationId ? `${operation.operationId}_${extra.join('_')}` : undefined, parameters: [...added, ...kept] };
}

/** `/environments/:project_id/x` → `/environments/{project_id}/x` */
function openApiPath(path: string): string {
  return path.replace(/:([a-z_]+)/g, '{$1}');
}
