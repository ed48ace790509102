import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, gql } from './kit/http.js';
import { BUILD_DIR } from './kit/process.js';
import { startStack, TEST_SECRET_KEY, type Stack } from './kit/stack.js';
import { createScratchDatabase, dropDatabase } from '../subgraphs/shared/db/database.js';

const CLI = `${BUILD_DIR}/router/process/cli/bootstrap.cli.js`;
const PASSWORD = 'a long password';
const KEYS = ['organization_id', 'project_id', 'environment_id', 'user_uuid', 'personal_api_key', 'project_api_key'];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a command in a session of its own: without a controlling terminal, as in CI, so that a
 * missing password fails instead of prompting on the terminal of whoever runs the tests.
 */
function run(command: string, args: string[], env: Record<string, string>, options: { cwd?: string; input?: (chunk: string, stdin: NodeJS.WritableStream) => void } = {}): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(command, args, { env: { PATH: process.env.PATH ?? '', ...env }, cwd: options.cwd, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      options.input?.(stdout, child.stdin);
    });
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    if (!options.input) child.stdin.end();
    child.once('close', (code) => done({ code, stdout, stderr }));
  });
}

const bootstrapCli = (args: string[], env: Record<string, string>) => run(process.execPath, [CLI, ...args], env);

function oneJsonObject(output: string): Record<string, unknown> {
  const lines = output.trim().split('\n');
  expect(lines).toHaveLength(1);
  const result = JSON.parse(lines[0]!) as Record<string, unknown>;
  expect(Object.keys(result)).toEqual(KEYS);
  return result;
}

describe('npm run bootstrap', () => {
  let stack: Stack;
  let env: Record<string, string>;
  beforeAll(async () => {
    stack = await startStack({ databaseUrl: inject('databaseUrl') });
    env = { DATABASE_URL: inject('databaseUrl'), SECRET_KEY: TEST_SECRET_KEY, DATA_DIR: mkdtempSync(join(tmpdir(), 'analytics-boot-')) };
  });
  afterAll(() => stack?.stop());

  const email = `boot-${Date.now()}@example.test`;
  const keyWorks = async (key: string) => (await api(stack.url, 'GET', '/api/personal_api_keys/', { key })).status === 200;

  it('prints exactly one JSON object whose keys work against the running server', async () => {
    const result = await bootstrapCli(['--email', email, '--password', PASSWORD, '--organization', 'Acme', '--project', 'Web'], env);
    expect(result.code).toBe(0);
    const printed = oneJsonObject(result.stdout);
    expect(printed.organization_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof printed.project_id).toBe('number');
    expect(printed.environment_id).toBe(printed.project_id);
    const key = printed.personal_api_key as string;

    const me = await gql(stack.graphqlUrl, '{ me { email uuid } organizations { id name } }', {}, key);
    expect(me.data.me).toEqual({ email, uuid: printed.user_uuid });
    expect(me.data.organizations).toEqual([{ id: printed.organization_id, name: 'Acme' }]);
    const keys = await api(stack.url, 'GET', '/api/personal_api_keys/', { key });
    expect(keys.body[0].scopes).toEqual(['*']);
    const environment = await gql(stack.graphqlUrl, 'query ($id: Int!) { environment(id: $id) { api_token project { name } } }', { id: printed.environment_id }, key);
    expect(environment.data.environment).toEqual({ api_token: printed.project_api_key, project: { name: 'Web' } });
  });

  it('reuses an existing user and organization with the right password; the key printed before keeps working', async () => {
    const args = ['--email', email, '--password', PASSWORD, '--organization', 'Acme', '--project', 'Web'];
    const first = oneJsonObject((await bootstrapCli(args, env)).stdout);
    const second = oneJsonObject((await bootstrapCli(args, env)).stdout);
    expect(second.user_uuid).toBe(first.user_uuid);
    expect(second.organization_id).toBe(first.organization_id);
    expect(second.project_id).toBe(first.project_id);
    expect(second.personal_api_key).not.toBe(first.personal_api_key);
    expect(await keyWorks(second.personal_api_key as string)).toBe(true);
    expect(await keyWorks(first.personal_api_key as string)).toBe(true);
  });

  it('never meets the key limit however often it runs: at ten keys the oldest bootstrap key makes room', async () => {
    const user = `boot-twelve-${Date.now()}@example.test`;
    const printed: string[] = [];
    for (let i = 0; i < 12; i++) {
      const result = await bootstrapCli(['--email', user], { ...env, BOOTSTRAP_PASSWORD: PASSWORD });
      expect(result, result.stderr).toMatchObject({ code: 0 });
      printed.push(oneJsonObject(result.stdout).personal_api_key as string);
    }
    expect(new Set(printed).size).toBe(12);
    expect([await keyWorks(printed[0]!), await keyWorks(printed[1]!), await keyWorks(printed[2]!), await keyWorks(printed[10]!)]).toEqual([false, false, true, true]);
    const keys = await api(stack.url, 'GET', '/api/personal_api_keys/', { key: printed[11]! });
    expect(keys.status).toBe(200);
    expect(keys.body.map((key: { label: string; scopes: string[] }) => [key.label, key.scopes])).toEqual(Array.from({ length: 10 }, () => ['bootstrap', ['*']]));
  }, 300_000);

  it('takes the password from a file, dropping its trailing newline, and never echoes it', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'analytics-boot-pw-')), 'password');
    writeFileSync(file, `${PASSWORD}\n`, { mode: 0o600 });
    const result = await bootstrapCli(['--email', email, '--password-file', file, '--organization', 'Acme', '--project', 'Web'], env);
    expect(result.code).toBe(0);
    expect(oneJsonObject(result.stdout).organization_id).toBeDefined();
    expect(result.stdout + result.stderr).not.toContain(PASSWORD);
  });

  it.skipIf(spawnSync('script', ['--version']).status !== 0)('asks on the terminal without echo when no password is given', async () => {
    // util-linux `script` gives the command a terminal; what it prints is what the terminal shows.
    let typed = false;
    const result = await run('script', ['-qec', `${process.execPath} ${CLI} --email ${email} --organization Acme --project Web`, '/dev/null'], env, {
      input: (output, stdin) => {
        // Typed only once asked: before that the terminal still echoes, as it does for any prompt.
        if (typed || !output.includes('Password:')) return;
        typed = true;
        stdin.write(`${PASSWORD}\r`);
      },
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/Password: \r?\n/);
    expect(result.stdout).not.toContain(PASSWORD);
    expect(JSON.parse(result.stdout.slice(result.stdout.indexOf('{')))).toMatchObject({ organization_id: expect.any(String) });
  });

  it('refuses an existing email with the wrong password, a missing email, and no password without a terminal (exit 2)', async () => {
    const wrong = await bootstrapCli(['--email', email], { ...env, BOOTSTRAP_PASSWORD: 'not the password' });
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toBe('');
    expect(wrong.stderr).toMatch(/password/);
    expect(wrong.stderr).not.toContain('not the password');
    const missing = await bootstrapCli(['--password', PASSWORD], env);
    expect(missing).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^error: --email is required\nusage: npm run bootstrap/) });
    const noPassword = await bootstrapCli(['--email', email], env);
    expect(noPassword).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(/^error: no password: set BOOTSTRAP_PASSWORD/) });
  });

  describe('through npm, as the README says', () => {
    /** The project's own bootstrap script, in a package of its own that runs the tests' build instead of dist/. */
    function packageDir(): string {
      const project = JSON.parse(readFileSync('package.json', 'utf8')) as { name: string; version: string; scripts: Record<string, string> };
      const dir = mkdtempSync(join(tmpdir(), 'analytics-boot-npm-'));
      const script = project.scripts.bootstrap!.replaceAll('dist/', `${resolve(BUILD_DIR)}/`);
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: project.name, version: project.version, private: true, scripts: { bootstrap: script } }));
      copyFileSync('.npmrc', join(dir, '.npmrc'));
      return dir;
    }
    const npm = (args: string[]) =>
      run('npm', args, { ...env, HOME: mkdtempSync(join(tmpdir(), 'analytics-boot-home-')), BOOTSTRAP_PASSWORD: PASSWORD, npm_config_update_notifier: 'false' }, { cwd: packageDir() });

    it('the contract\'s `npm run bootstrap -- --email … --password …` prints exactly one JSON object on stdout; npm\'s banner goes to stderr', async () => {
      const result = await npm(['run', 'bootstrap', '--', '--email', email, '--password', PASSWORD, '--organization', 'Acme', '--project', 'Web']);
      expect(result.code).toBe(0);
      const printed = oneJsonObject(result.stdout);
      expect(await keyWorks(printed.personal_api_key as string)).toBe(true);
      expect(result.stderr).toMatch(/^\n> analytics-platform@\S+ bootstrap\n> node \S+bootstrap\.cli\.js --email /);
    });

    it('`BOOTSTRAP_PASSWORD=… npm run bootstrap -- --email …` (the README\'s) prints exactly one JSON object and the password nowhere', async () => {
      const result = await npm(['run', 'bootstrap', '--', '--email', email, '--organization', 'Acme', '--project', 'Web']);
      expect(result.code).toBe(0);
      const printed = oneJsonObject(result.stdout);
      expect(await keyWorks(printed.personal_api_key as string)).toBe(true);
      expect(result.stdout + result.stderr).not.toContain(PASSWORD);
    });

    it('with --silent, npm prints no banner at all', async () => {
      const result = await npm(['run', '--silent', 'bootstrap', '--', '--email', email, '--organization', 'Acme', '--project', 'Web']);
      expect(result.code).toBe(0);
      oneJsonObject(result.stdout);
      expect(result.stderr).not.toContain('> analytics-platform@');
    });
  });
});

describe('a SECRET_KEY that does not open the database', () => {
  it('stops npm run bootstrap and npm start with one line naming SECRET_KEY (exit 1), and changes nothing', async () => {
    const databaseUrl = await createScratchDatabase(inject('databaseUrl'), 'analytics_boot_key');
    try {
      const env = { DATABASE_URL: databaseUrl, DATA_DIR: mkdtempSync(join(tmpdir(), 'analytics-boot-key-')), BOOTSTRAP_PASSWORD: PASSWORD, LOG_LEVEL: 'silent' };
      const args = ['--email', 'key-check@example.test', '--organization', 'Key check'];
      const first = await bootstrapCli(args, { ...env, SECRET_KEY: TEST_SECRET_KEY });
      expect(first.code).toBe(0);
      const other = { ...env, SECRET_KEY: 'another key, of more than thirty-two characters' };
      const line = /^invalid setting SECRET_KEY: does not open the secrets this database holds \(they were sealed under another key\)\n$/;
      expect(await bootstrapCli(args, other)).toEqual({ code: 1, stdout: '', stderr: expect.stringMatching(line) });
      expect(await run(process.execPath, [`${BUILD_DIR}/router/process/main.js`], { ...other, WORKERS: '1', PORT: '0' })).toEqual({ code: 1, stdout: '', stderr: expect.stringMatching(line) });
      // The right key still opens what the first run sealed.
      const again = await bootstrapCli(args, { ...env, SECRET_KEY: TEST_SECRET_KEY });
      expect(oneJsonObject(again.stdout).project_api_key).toBe(oneJsonObject(first.stdout).project_api_key);
    } finally {
      await dropDatabase(databaseUrl);
    }
  }, 120_000);
});
