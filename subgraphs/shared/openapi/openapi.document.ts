import { ERROR_SCHEMA, type OpenApiObject } from './openapi.errors.js';
import { danglingRefs, wrapRefSiblings } from './openapi.refs.js';

export interface OpenApiParts {
  info: OpenApiObject;
  paths: OpenApiObject;
  schemas?: OpenApiObject;
  securitySchemes: OpenApiObject;
  tags?: { name: string; description: string }[];
  /** The default security of operations that name none. */
  security?: OpenApiObject[];
}

/**
 * An OpenAPI 3.0.3 document as both of ours are served (`/api/schema/` and a saved endpoint's
 * `openapi.json`): the contract's `Error` schema, no `$ref` with siblings, and no reference to
 * nothing (a defect here, never a document that validators reject).
 */
export function openApiDocument(parts: OpenApiParts): OpenApiObject {
  const document = wrapRefSiblings({
    openapi: '3.0.3',
    info: parts.info,
    // Paths are written whole (`/api/…`, `/batch/`): the server is the origin alone, so that
    // Swagger UI's "Try it out" and generated clients call the real URL, never `/api/api/…`.
    servers: [{ url: '/' }],
    ...(parts.tags ? { tags: parts.tags } : {}),
    paths: parts.paths,
    components: { schemas: { ...parts.schemas, Error: ERROR_SCHEMA }, securitySchemes: parts.securitySchemes },
    ...(parts.security ? { security: parts.security } : {}),
  });
  const dangling = danglingRefs(document);
  if (dangling.length > 0) throw new Error(`OpenAPI document refers to nothing at ${dangling.join(', ')}`);
  return document;
}

/** The personal API key as an HTTP bearer scheme (`Authorization: Bearer phx_…`). */
export function personalApiKeyScheme(description: string): OpenApiObject {
  return { type: 'http', scheme: 'bearer', description };
}
