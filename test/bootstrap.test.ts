import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, gql } from './kit/http.js';
import { BUILD_DIR, runCli } from './kit/process.js';
import { startStack, TEST_SECRET_KEY, type Stack } from './kit/stack.js';

const CLI = `${BUILD_DIR}/subgraphs/cli/bootstrap.cli.js`;

describe('npm run bootstrap', () => {
  let stack: Stack;
  let env: Record<string, string>;
  beforeAll(async () => {
    stack = await startStack({ databaseUrl: inject('databaseUrl') });
    env = { DATABASE_URL: inject('databaseUrl'), SECRET_KEY: TEST_SECRET_KEY, DATA_DIR: mkdtempSync(join(tmpdir(), 'analytics-boot-')) };
  });
  afterAll(() => stack?.stop());

  const email = `boot-${Date.now()}@example.test`;

  it('prints exactly one JSON object whose keys work against the running server', async () => {
    const run = await runCli(CLI, ['--email', email, '--password', 'a long password', '--organization', 'Acme', '--project', 'Web'], env);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const result = JSON.parse(lines[0]!);
    expect(Object.keys(result)).toEqual(['organization_id', 'project_id', 'environment_id', 'user_uuid', 'personal_api_key', 'project_api_key']);
    expect(result.organization_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof result.project_id).toBe('number');
    expect(result.environment_id).toBe(result.project_id);

    const me = await gql(stack.graphqlUrl, '{ me { email uuid } organizations { id name } }', {}, result.personal_api_key);
    expect(me.data.me).toEqual({ email, uuid: result.user_uuid });
    expect(me.data.organizations).toEqual([{ id: result.organization_id, name: 'Acme' }]);
    const keys = await api(stack.url, 'GET', '/api/personal_api_keys/', { key: result.personal_api_key });
    expect(keys.body[0].scopes).toEqual(['*']);
    const environment = await gql(stack.graphqlUrl, 'query ($id: Int!) { environment(id: $id) { api_token project { name } } }', { id: result.environment_id }, result.personal_api_key);
    expect(environment.data.environment).toEqual({ api_token: result.project_api_key, project: { name: 'Web' } });
  });

  it('reuses an existing user and organization with the right password', async () => {
    const first = JSON.parse((await runCli(CLI, ['--email', email, '--password', 'a long password', '--organization', 'Acme', '--project', 'Web'], env)).stdout);
    const second = JSON.parse((await runCli(CLI, ['--email', email, '--password', 'a long password', '--organization', 'Acme', '--project', 'Web'], env)).stdout);
    expect(second.user_uuid).toBe(first.user_uuid);
    expect(second.organization_id).toBe(first.organization_id);
    expect(second.project_id).toBe(first.project_id);
    expect(second.personal_api_key).not.toBe(first.personal_api_key);
  });

  it('refuses an existing email with the wrong password, and missing arguments', async () => {
    const wrong = await runCli(CLI, ['--email', email, '--password', 'not the password'], env);
    expect(wrong.code).not.toBe(0);
    expect(wrong.stdout).toBe('');
    expect(wrong.stderr).toMatch(/password/);
    const missing = await runCli(CLI, ['--email', email], env);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/usage/);
  });
});
