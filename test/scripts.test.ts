import { readFileSync } from 'node:fs';
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

  it('sends npm\'s run-script banner to stderr, and leaves npm its own messages', () => {
    // The contract's `npm run bootstrap -- …` prints one JSON object on stdout: JSON mode moves the
    // banner to stderr. loglevel=silent would hide it too, but also npm's errors (npm ci failing without a word).
    const npmrc = readFileSync('.npmrc', 'utf8');
    expect(npmrc).toMatch(/^json=true$/m);
    expect(npmrc).not.toMatch(/^\s*loglevel\s*=\s*silent/m);
  });
});
