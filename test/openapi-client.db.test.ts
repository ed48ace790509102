import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api } from './kit/http.js';
import type { Json } from './kit/openapi.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
let tenant: Tenant;
let document: Json;
let dir: string;

/**
 * Calls through a client typed by the generated `paths`: type-checked below, then run against the
 * platform. Its base URL is the document's server resolved against the platform's origin.
 */
const SCENARIO = `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

export async function scenario(baseUrl: string, key: string, projectId: number) {
  const client = createClient<paths>({ baseUrl, headers: { authorization: \`Bearer \${key}\` } });
  const path = { project_id: projectId };
  const me = await client.GET('/api/users/{uuid}/', { params: { path: { uuid: '@me' } } });
  const keys = await client.GET('/api/personal_api_keys/');
  const created = await client.POST('/api/environments/{project_id}/customer_profile_configs/', { params: { path }, body: { scope: 'person', content: { blocks: [1] } } });
  const id: string = created.data!.id;
  const got = await client.GET('/api/environments/{project_id}/customer_profile_configs/{id}/', { params: { path: { ...path, id } } });
  const patched = await client.PATCH('/api/environments/{project_id}/customer_profile_configs/{id}/', { params: { path: { ...path, id } }, body: { sidebar: { open: true } } });
  const listed = await client.GET('/api/environments/{project_id}/customer_profile_configs/', { params: { path, query: { limit: 10 } } });
  const events = await client.GET('/api/projects/{project_id}/events/', { params: { path } });
  const current = await client.GET('/api/environments/{project_id}/customer_profile_configs/', { params: { path: { project_id: '@current' } } });
  const deleted = await client.DELETE('/api/environments/{project_id}/customer_profile_configs/{id}/', { params: { path: { ...path, id } } });
  const gone = await client.GET('/api/environments/{project_id}/customer_profile_configs/{id}/', { params: { path: { ...path, id } } });
  const anonymous = await createClient<paths>({ baseUrl }).GET('/api/personal_api_keys/');
  // The error body is typed: these lines only compile if \`error\` is the contract's body.
  const notFound: { type: string; code: string; detail: string; attr?: string | null } | undefined = gone.error;
  const unauthenticated: string | undefined = anonymous.error?.code;
  return {
    me: { status: me.response.status, email: me.data?.email },
    keys: { status: keys.response.status, count: keys.data?.length },
    created: { status: created.response.status, scope: created.data?.scope },
    got: { status: got.response.status, id: got.data?.id },
    patched: { status: patched.response.status, sidebar: patched.data?.sidebar },
    listed: { status: listed.response.status, count: listed.data?.count },
    events: { status: events.response.status, results: events.data?.results.length },
    current: { status: current.response.status, count: current.data?.count },
    deleted: { status: deleted.response.status },
    gone: { status: gone.response.status, error: notFound },
    anonymous: { status: anonymous.response.status, code: unauthenticated },
  };
}
`;

/** The compiler's complaints about a source file beside the generated types (strict mode). */
function diagnostics(name: string, source: string): string[] {
  writeFileSync(join(dir, name), source);
  const program = ts.createProgram([join(dir, name)], {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    skipLibCheck: true,
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n'));
}

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  tenant = await seedTenant(inject('databaseUrl'), 'openapi-client');
  document = (await api(stack.url, 'GET', '/api/schema/')).body;
  // Inside the project, so that the files resolve openapi-fetch from its node_modules.
  dir = mkdtempSync(join(process.cwd(), '.openapi-client-'));
  writeFileSync(join(dir, 'api.d.ts'), astToString(await openapiTS(structuredClone(document) as never)));
});
afterAll(async () => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  await stack?.stop();
});

describe('a typed client generated from /api/schema/ (openapi-typescript, openapi-fetch)', () => {
  it('type-checks calls written against the generated paths, and refuses wrong ones', () => {
    expect(diagnostics('scenario.ts', SCENARIO)).toEqual([]);
    const wrongId = SCENARIO.replace("const path = { project_id: projectId };", "const path = { project_id: 'one' };");
    expect(diagnostics('wrong-id.ts', wrongId).join(' ')).toMatch(/not assignable to type 'number \| "@current"'/);
    const unknownPath = SCENARIO.replace("'/api/personal_api_keys/'", "'/api/personal_api_key/'");
    expect(diagnostics('unknown-path.ts', unknownPath)).not.toEqual([]);
  });

  it('calls the platform through the generated client: real statuses, typed error bodies', async () => {
    writeFileSync(join(dir, 'scenario.ts'), SCENARIO);
    const { scenario } = (await import(join(dir, 'scenario.ts'))) as { scenario: (baseUrl: string, key: string, projectId: number) => Promise<Json> };
    const baseUrl = new URL(document.servers[0].url, stack.url).href;
    const result = await scenario(baseUrl, tenant.personal_api_key, tenant.environment_id);
    expect(result).toEqual({
      me: { status: 200, email: tenant.email },
      keys: { status: 200, count: expect.any(Number) },
      created: { status: 201, scope: 'person' },
      got: { status: 200, id: expect.any(String) },
      patched: { status: 200, sidebar: { open: true } },
      listed: { status: 200, count: 1 },
      events: { status: 200, results: 0 },
      current: { status: 200, count: 1 },
      deleted: { status: 204 },
      gone: { status: 404, error: { type: 'invalid_request', code: 'not_found', detail: expect.any(String), attr: null } },
      anonymous: { status: 401, code: 'not_authenticated' },
    });
  });
});
