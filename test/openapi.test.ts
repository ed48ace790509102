import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../rest-compat/routes/index.js';
import { redoclySpecProblems, restOpenApiDocument, swaggerParserError, type Json } from './kit/openapi.js';

const apiSdl = readFileSync(resolve('schema/api.graphql'), 'utf8');
let document: Json;
beforeAll(() => {
  document = restOpenApiDocument(apiSdl);
});

const operations = () =>
  Object.entries<Json>(document.paths).flatMap(([path, methods]) => Object.entries<Json>(methods).map(([method, operation]) => ({ path, method, operation })));

/** Every object of the document that holds a `$ref`. */
function refHolders(node: unknown, found: Json[] = []): Json[] {
  if (Array.isArray(node)) node.forEach((item) => refHolders(item, found));
  else if (node && typeof node === 'object') {
    if ('$ref' in node) found.push(node as Json);
    Object.values(node).forEach((value) => refHolders(value, found));
  }
  return found;
}

/** A local `$ref`'s target, after the `allOf` wrapper a description needs. */
function resolved(schema: Json): Json {
  const ref: string | undefined = schema.$ref ?? schema.allOf?.[0]?.$ref;
  return ref ? document.components.schemas[ref.split('/').pop()!] : schema;
}

describe('the OpenAPI document (/api/schema/)', () => {
  it('passes @apidevtools/swagger-parser and Redocly\'s spec rules', async () => {
    expect(document.openapi).toBe('3.0.3');
    expect(await swaggerParserError(document)).toBeNull();
    expect(await redoclySpecProblems(document)).toEqual([]);
  });

  it('has servers and paths that compose the real URLs (no /api/api)', () => {
    expect(document.servers).toEqual([{ url: '/' }]);
    const origin = 'http://127.0.0.1:8000';
    for (const path of Object.keys(document.paths)) {
      const url = new URL(`${new URL(document.servers[0].url, origin).href.replace(/\/$/, '')}${path}`);
      expect(url.origin).toBe(origin);
      expect(url.pathname).toMatch(/^\/(api\/(?!api\/)|batch\/$)/);
      expect(url.pathname.endsWith('/')).toBe(true);
    }
  });

  it('holds every route and alias of the route table, and /batch/, and nothing else', () => {
    const expected = routes.flatMap((route) => [route.path, ...(route.aliases ?? [])].map((path) => `${route.method} /api${path.replace(/:([a-z_]+)/g, '{$1}')}/`));
    const actual = operations().map(({ path, method }) => `${method.toUpperCase()} ${path}`);
    expect(actual.sort()).toEqual([...expected, 'POST /batch/'].sort());
    expect(Object.keys(document.paths).filter((path) => /ingest-payload|webhook/.test(path))).toEqual([]);
  });

  it("gives every operation a unique operationId in PostHog's style, a summary and one declared tag", () => {
    const ids = operations().map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { path, method, operation } of operations()) {
      expect(operation.operationId, `${method} ${path}`).toMatch(/^[a-z0-9_]+_(list|retrieve|create|update|partial_update|destroy)$/);
      expect(operation.summary, `${method} ${path}`).toMatch(/\w/);
      expect(operation.tags).toHaveLength(1);
    }
    const byPath = (method: string, path: string) => document.paths[path][method].operationId;
    expect(byPath('get', '/api/environments/{project_id}/conversations/')).toBe('environments_conversations_list');
    expect(byPath('post', '/api/environments/{project_id}/conversations/')).toBe('environments_conversations_create');
    expect(byPath('get', '/api/environments/{project_id}/conversations/{conversation}/')).toBe('environments_conversations_retrieve');
    expect(byPath('patch', '/api/environments/{project_id}/conversations/{conversation}/queue/{queue_id}/')).toBe('environments_conversations_queue_partial_update');
    expect(byPath('delete', '/api/environments/{project_id}/conversations/{conversation}/queue/{queue_id}/')).toBe('environments_conversations_queue_destroy');
    expect(byPath('post', '/api/environments/{project_id}/batch_exports/{id}/pause/')).toBe('environments_batch_exports_pause_create');
    expect(byPath('post', '/api/projects/{project_id}/batch_exports/{id}/pause/')).toBe('projects_batch_exports_pause_create');
    expect(byPath('get', '/api/personal_api_keys/')).toBe('personal_api_keys_list');
    expect(byPath('get', '/api/users/{uuid}/')).toBe('users_retrieve');
    expect(byPath('post', '/api/environments/{project_id}/endpoints/{name}/run/')).toBe('environments_endpoints_run_create');
  });

  it("tags each domain as PostHog's schema does, and declares exactly the tags it uses", () => {
    const used = new Set(operations().map(({ operation }) => operation.tags[0]));
    expect(document.tags.map((tag: Json) => tag.name).sort()).toEqual([...used].sort());
    expect([...used].sort()).toEqual(
      ['batch_exports', 'capture', 'conversations', 'customer_profile_configs', 'endpoints', 'environments', 'events', 'groups', 'llm_analytics', 'members', 'personal_api_keys', 'persons', 'projects', 'users'],
    );
    const tagOf = (method: string, path: string) => document.paths[path][method].tags[0];
    expect(tagOf('patch', '/api/environments/{id}/reset_token/')).toBe('environments');
    expect(tagOf('patch', '/api/projects/{project_id}/environments/{id}/')).toBe('environments');
    expect(tagOf('post', '/api/organizations/{source_organization_id}/projects/{id}/change_organization/')).toBe('projects');
    expect(tagOf('get', '/api/projects/{project_id}/persons/{id}/')).toBe('persons');
  });

  it('puts the bearer scheme on every authenticated operation, and none on the keyless ones', () => {
    expect(document.components.securitySchemes).toEqual({ PersonalAPIKeyAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }) });
    const keyless = ['POST /api/users/request_email_verification/', 'POST /api/users/verify_email/', 'POST /batch/'];
    for (const { path, method, operation } of operations()) {
      const name = `${method.toUpperCase()} ${path}`;
      expect(operation.security, name).toEqual(keyless.includes(name) ? [] : [{ PersonalAPIKeyAuth: [] }]);
      expect('401' in operation.responses, name).toBe(name === 'POST /batch/' || !keyless.includes(name));
    }
    // The project API key goes in the body of /batch/.
    expect(document.paths['/batch/'].post.requestBody.content['application/json'].schema.properties.api_key.type).toBe('string');
  });

  it("answers the contract's error body on 400/401/403/404/405/429, and Retry-After with a 429", () => {
    expect(document.components.schemas.Error.required).toEqual(['type', 'code', 'detail', 'attr']);
    for (const { path, method, operation } of operations().filter(({ path }) => path.startsWith('/api/'))) {
      const statuses = operation.security.length ? ['400', '401', '403', '404', '405', '429'] : ['400', '403', '404', '405'];
      for (const status of statuses) {
        expect(operation.responses[status]?.content, `${method} ${path} ${status}`).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/Error' } } });
      }
      if (operation.security.length) expect(operation.responses['429'].headers['Retry-After'].schema.type).toBe('integer');
    }
  });

  it('has no $ref with siblings, and types free-form JSON and times', () => {
    expect(refHolders(document).filter((holder) => Object.keys(holder).length > 1)).toEqual([]);
    const config = document.components.schemas.CustomerProfileConfig.properties;
    expect(resolved(config.content).anyOf).toContainEqual({ type: 'object', additionalProperties: true });
    expect(config.created_at).toMatchObject({ type: 'string', format: 'date-time' });
    const create = document.paths['/api/environments/{project_id}/customer_profile_configs/'].post.requestBody.content['application/json'].schema;
    // The path carries project_id: the body neither holds nor requires it.
    expect(Object.keys(create.properties)).not.toContain('project_id');
    expect(create.required ?? []).not.toContain('project_id');
  });

  it('is the same document every time', () => {
    expect(JSON.stringify(restOpenApiDocument(apiSdl))).toBe(JSON.stringify(document));
  });
});
