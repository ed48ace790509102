import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const scripts = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts;

describe('npm scripts', () => {
  it('build once, on install: npm install and npm ci leave a runnable build', () => {
    expect(scripts.prepare).toBe('npm run --silent build');
    expect(scripts.build).toContain('tsc -p tsconfig.build.json');
  });

  it.each(['start', 'bootstrap', 'import', 'db:migrate'])('%s runs the build as it is: it never deletes or rewrites files a running server uses', (name) => {
    // `exec` (start) has the shell hand over to node, so that signals reach the platform itself.
    expect(scripts[name]).toMatch(/^(exec )?node dist\/\S+\.js$/);
  });

  it.each(['schema:emit', 'db:migration:create'])('%s compiles into a directory of its own, not dist/', (name) => {
    expect(scripts[name]).toContain('--outDir .tools-build');
    expect(scripts[name]).not.toMatch(/rmSync\('dist'|--outDir dist/);
  });

  it.each([
    ['--help', 0, /^usage: npm run build /, ''],
    ['--bogus', 2, /^$/, 'npm run build takes no arguments: --bogus\nusage: npm run build\n'],
  ])('build %s answers before it deletes dist/ (exit %i)', (flag, code, stdout, stderr) => {
    // npm appends the arguments to the script's last word; run it so, where a dist/ would be lost.
    const dir = mkdtempSync(join(tmpdir(), 'analytics-build-'));
    mkdirSync(join(dir, 'dist'));
    writeFileSync(join(dir, 'dist', 'kept'), '');
    const run = spawnSync('sh', ['-c', `${scripts.build} ${flag}`], { cwd: dir, encoding: 'utf8' });
    expect({ code: run.status, stderr: run.stderr }).toEqual({ code, stderr });
    expect(run.stdout).toMatch(stdout);
    expect(existsSync(join(dir, 'dist', 'kept'))).toBe(true);
  });

  it.each([
    ['bench:parse', '--help', 0, /^usage: npm run bench:parse .*hogql-parse; takes no arguments\)\n$/, /^$/],
    ['bench', '--bogus', 2, /^$/, /^npm run bench takes no arguments: --bogus\nusage: npm run bench .*router, settings, .*fairness; takes no arguments\)\n$/],
    ['bench:soak', '--bogus', 2, /^$/, /^error: unknown option '--bogus'\nusage: npm run bench:soak \[-- --minutes <n>\]/],
    ['bench:soak', '--minutes', 2, /^$/, /^error: option '--minutes' argument missing\nusage: /],
    ['bench:soak', '--help', 0, /^usage: npm run bench:soak /, /^$/],
  ])('%s %s answers before it builds over dist/ (exit %i)', (name, flag, code, stdout, stderr) => {
    const dir = mkdtempSync(join(tmpdir(), 'analytics-bench-'));
    mkdirSync(join(dir, 'dist'));
    writeFileSync(join(dir, 'dist', 'kept'), '');
    const command = scripts[name]!.replace('sh test/bench/bench.sh', `sh ${resolve('test/bench/bench.sh')}`);
    const run = spawnSync('sh', ['-c', `${command} ${flag}`], { cwd: dir, encoding: 'utf8' });
    expect(run.status).toBe(code);
    expect(run.stdout).toMatch(stdout);
    expect(run.stderr).toMatch(stderr);
    expect(existsSync(join(dir, 'dist', 'kept'))).toBe(true);
  });

  it('test: an unknown option is one line and the usage, exit 2, no stack trace', () => {
    expect(scripts.test).toBe('node test/kit/vitest.cli.mjs run');
    const run = spawnSync(process.execPath, ['test/kit/vitest.cli.mjs', 'run', '--bogus'], { encoding: 'utf8' });
    expect({ code: run.status, stdout: run.stdout }).toEqual({ code: 2, stdout: '' });
    expect(run.stderr).toBe("error: Unknown option `--bogus`\nusage: npm test [-- [vitest options] [file filters]]   (npm test -- --help lists vitest's options)\n");
  });

  it('sends npm\'s run-script banner to stderr, and leaves npm its own messages', () => {
    // The contract's `npm run bootstrap -- …` prints one JSON object on stdout: JSON mode moves the
    // banner to stderr. loglevel=silent would hide it too, but also npm's errors (npm ci failing without a word).
    const npmrc = readFileSync('.npmrc', 'utf8');
    expect(npmrc).toMatch(/^json=true$/m);
    expect(npmrc).not.toMatch(/^\s*loglevel\s*=\s*silent/m);
  });
});
