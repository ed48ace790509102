import { mkdtempSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { BUILD_DIR, runCli } from './kit/process.js';

/** Every command the README names, as its usage line starts, with the options its help must describe. */
const COMMANDS = [
  { name: 'npm start', script: 'router/process/main.js', options: [] },
  { name: 'npm run bootstrap', script: 'router/process/cli/bootstrap.cli.js', options: ['--email', '--password', '--password-file', '--organization', '--project', 'BOOTSTRAP_PASSWORD'] },
  { name: 'npm run db:migrate', script: 'router/process/cli/migrate.cli.js', options: [] },
  { name: 'npm run db:migration:create', script: 'router/process/cli/migration-create.cli.js', options: ['subgraph'] },
  { name: 'node dist/router/process/cli/subgraph.cli.js', script: 'router/process/cli/subgraph.cli.js', options: ['<name>'] },
  { name: 'npm run schema:emit', script: 'schema/emit.js', options: [] },
  {
    name: 'npm run import',
    script: 'router/process/cli/import/import.cli.js',
    options: ['--file', '--token', '--host', '--batch-size', '--max-batch-bytes', '--concurrency', '--checkpoint', '--rejects', '--retry-for-seconds'],
  },
];

/** Nothing to configure: the help and the usage must not need settings. */
const NO_SETTINGS = {};
const STACK_FRAME = /^\s+at /m;

describe.concurrent('command lines', () => {
  describe.each(COMMANDS)('$name', ({ name, script, options }) => {
    const cli = `${BUILD_DIR}/${script}`;

    it('--help prints the usage and describes every option on stdout, exit 0', async () => {
      const { code, stdout, stderr } = await runCli(cli, ['--help'], NO_SETTINGS);
      expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
      expect(stdout.startsWith(`usage: ${name}`)).toBe(true);
      for (const option of [...options, '-h, --help']) expect(stdout).toContain(option);
    }, 120_000);

    it('an unknown option prints one line naming it and the usage on stderr, exit 2, no stack trace', async () => {
      const { code, stdout, stderr } = await runCli(cli, ['--no-such-option'], NO_SETTINGS);
      expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
      // commander may add a line suggesting a near option name.
      expect(stderr).toMatch(new RegExp(`^error: unknown option '--no-such-option'\\n(\\(Did you mean .+\\)\\n)?usage: ${name}`));
      expect(stderr).not.toMatch(STACK_FRAME);
    }, 120_000);
  });

  it('an unknown option written with its value does not repeat the value (it may be a password)', async () => {
    const { code, stderr } = await runCli(`${BUILD_DIR}/router/process/cli/bootstrap.cli.js`, ['--email', 'a@example.test', '--pasword=hunter2hunter2'], NO_SETTINGS);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^error: unknown option '--pasword=…'/);
    expect(stderr).not.toContain('hunter2');
  });

  it.each([
    ['an option without its value', 'router/process/cli/bootstrap.cli.js', ['--email'], /^error: option '--email <address>' argument missing\nusage:/],
    ['a missing argument', 'router/process/cli/subgraph.cli.js', [], /^error: missing required argument 'name'\nusage:/],
    ['an unknown subgraph', 'router/process/cli/subgraph.cli.js', ['nope'], /^error: no subgraph named nope: name one of accounts, /],
    ['an extra argument', 'router/process/main.js', ['extra'], /^error: too many arguments/],
  ])('%s is a mistake in the call too (exit 2)', async (_case, script, args, message) => {
    expect(await runCli(`${BUILD_DIR}/${script}`, args, NO_SETTINGS)).toMatchObject({ code: 2, stdout: '', stderr: expect.stringMatching(message) });
  }, 120_000);

  it.each([
    ['a DATABASE_URL whose server refuses connections', { DATA_DIR: mkdtempSync(join(tmpdir(), 'cli-start-')), DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }, /^invalid setting DATABASE_URL: cannot connect to PostgreSQL: connect ECONNREFUSED 127\.0\.0\.1:1\n$/],
    ['a DATA_DIR that is a file', { DATA_DIR: '/dev/null', DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' }, /^invalid setting DATA_DIR: cannot be made \(EEXIST[^\n]+\)\n$/],
  ])('npm start names the setting behind %s, in one line (exit 1)', async (_case, settings, line) => {
    const { code, stdout, stderr } = await runCli(`${BUILD_DIR}/router/process/main.js`, [], { ...settings, WORKERS: '1', PORT: '0', LOG_LEVEL: 'silent' });
    expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
    expect(stderr).toMatch(line);
  }, 120_000);

  it('npm start names DATABASE_URL when its server will not let it in (an unknown role), in one line (exit 1)', async () => {
    const server = new URL(inject('databaseUrl'));
    const databaseUrl = `postgres://no_such_role_here@${server.host}/postgres`;
    const settings = { DATA_DIR: mkdtempSync(join(tmpdir(), 'cli-start-')), DATABASE_URL: databaseUrl, WORKERS: '1', PORT: '0', LOG_LEVEL: 'silent' };
    const { code, stdout, stderr } = await runCli(`${BUILD_DIR}/router/process/main.js`, [], settings);
    expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
    expect(stderr).toMatch(/^invalid setting DATABASE_URL: cannot connect to PostgreSQL: role "no_such_role_here" does not exist\n$/);
  }, 120_000);

  it('npm start names DATABASE_URL when its server takes connections and never answers, rather than wait for ever (exit 1)', async () => {
    const sockets: Socket[] = [];
    const silent = createServer((socket) => void sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const databaseUrl = `postgres://nobody@127.0.0.1:${(silent.address() as AddressInfo).port}/none`;
      const settings = { DATA_DIR: mkdtempSync(join(tmpdir(), 'cli-start-')), DATABASE_URL: databaseUrl, WORKERS: '1', PORT: '0', LOG_LEVEL: 'silent' };
      const { code, stdout, stderr } = await runCli(`${BUILD_DIR}/router/process/main.js`, [], settings);
      expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
      expect(stderr).toMatch(/^invalid setting DATABASE_URL: cannot connect to PostgreSQL: no answer within 10 s\n$/);
    } finally {
      for (const socket of sockets) socket.destroy();
      silent.close();
    }
  }, 120_000);

  it('a failure is one line on stderr, exit 1, no stack trace', async () => {
    const { code, stdout, stderr } = await runCli(`${BUILD_DIR}/router/process/cli/migrate.cli.js`, [], { DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none', LOG_LEVEL: 'silent' });
    expect({ code, stdout }).toEqual({ code: 1, stdout: '' });
    expect(stderr).toMatch(/^migration failed: [^\n]+\n$/);
  }, 120_000);
});
