import { openApiDocument, personalApiKeyScheme } from '../../subgraphs/shared/openapi/openapi.document.js';
import type { OpenApiObject } from '../../subgraphs/shared/openapi/openapi.errors.js';
import { batchPath } from '../ingest/ingest.openapi.js';
import type { RestRoute } from '../route-table.js';
import { PERSONAL_API_KEY, restOperation } from './openapi.operation.js';
import { TAGS } from './openapi.tags.js';

/** GraphQL's root types: SOFA lists them as schemas, though no REST record is one. */
const ROOT_TYPES = ['Query', 'Mutation', 'Subscription'];

/**
 * The REST layer's OpenAPI document (`/api/schema/`), made from the route table: every route and
 * alias under `prefix` with the trailing slash, from SOFA's operation for its field, and `/batch/`;
 * nothing else (SOFA's other fields, such as the router's internal ingest hand-off, stay out).
 */
export function restOpenApi(sofaDocument: OpenApiObject, routes: RestRoute[], prefix: string): OpenApiObject {
  const schemas = Object.fromEntries(Object.entries<OpenApiObject>(sofaDocument.components?.schemas ?? {}).filter(([name]) => !ROOT_TYPES.includes(name)));
  const paths: OpenApiObject = { '/batch/': batchPath };
  for (const route of routes) {
    const method = route.method.toLowerCase();
    const sofa = sofaDocument.paths?.[openApiPath(route.path)]?.[method];
    if (!sofa) throw new Error(`SOFA has no operation for ${route.method} ${route.path}`);
    for (const path of [route.path, ...(route.aliases ?? [])].map((routePath) => `${prefix}${openApiPath(routePath)}/`)) {
      paths[path] = { ...paths[path], [method]: restOperation(sofa, route, path, schemas) };
    }
  }
  const ids = Object.values<OpenApiObject>(paths).flatMap((operations) => Object.values<OpenApiObject>(operations).map((operation) => operation.operationId as string));
  const repeated = ids.filter((id, index) => ids.indexOf(id) !== index);
  if (repeated.length > 0) throw new Error(`operationIds used twice: ${repeated.join(', ')}`);
  return openApiDocument({
    info: sofaDocument.info,
    tags: TAGS,
    paths: Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b))),
    schemas,
    securitySchemes: { [PERSONAL_API_KEY]: personalApiKeyScheme('A personal API key: `Authorization: Bearer phx_…`.') },
  });
}

/** `/environments/:project_id/x` → `/environments/{project_id}/x` */
function openApiPath(path: string): string {
  return path.replace(/:([a-z_]+)/g, '{$1}');
}
