import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve('.');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'node_modules' ? [] : sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

/** Project-relative targets of a file's relative imports (`.js` specifiers point at `.ts` files). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.[^']+)'/g)].map((match) => match[1]!);
  return specifiers.map((specifier) => relative(ROOT, resolve(dirname(file), specifier)).replace(/\.js$/, '.ts'));
}

const rel = (file: string) => relative(ROOT, file);
/** Domain subgraphs; `shared/` is the kit and `cli/` the commands that assemble the whole platform. */
const domains = readdirSync('subgraphs').filter((name) => !['shared', 'cli'].includes(name) && statSync(join('subgraphs', name)).isDirectory());

describe('architecture: import boundaries', () => {
  it.each(domains)('subgraph %s imports only itself, the shared kit and other subgraphs\' facades (its tests also the test kit)', (domain) => {
    const offending = sourceFiles(join('subgraphs', domain)).flatMap((file) =>
      importsOf(file)
        .filter((target) => {
          if (target.startsWith(`subgraphs/${domain}/`) || target.startsWith('subgraphs/shared/')) return false;
          // Tests beside the code seed their tenants with the test kit's builders.
          if (file.endsWith('.test.ts') && target.startsWith('test/kit/')) return false;
          return !/^subgraphs\/[^/]+\/facade\.ts$/.test(target);
        })
        .map((target) => `${rel(file)} -> ${target}`),
    );
    expect(offending).toEqual([]);
  });

  it('the shared kit imports no subgraph, router or REST code', () => {
    const offending = sourceFiles('subgraphs/shared').flatMap((file) =>
      importsOf(file)
        .filter((target) => !target.startsWith('subgraphs/shared/'))
        .map((target) => `${rel(file)} -> ${target}`),
    );
    expect(offending).toEqual([]);
  });

  it('the router and the REST layer see the shared kit, not subgraph internals', () => {
    const offending = [...sourceFiles('router'), ...sourceFiles('rest-compat')].flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith('subgraphs/') && !target.startsWith('subgraphs/shared/'))
        // The process entry point (and its cluster primary) assembles the platform from the subgraph registry.
        .filter((target) => !(['router/platform.server.ts', 'router/cluster.primary.ts'].includes(rel(file)) && target === 'subgraphs/index.ts'))
        .map((target) => `${rel(file)} -> ${target}`),
    );
    expect(offending).toEqual([]);
  });

  it('the REST layer never calls the router\'s internals, nor the router the REST layer\'s, except to mount it', () => {
    const restToRouter = sourceFiles('rest-compat').flatMap((file) => importsOf(file).filter((target) => target.startsWith('router/')));
    expect(restToRouter).toEqual([]);
    const routerToRest = sourceFiles('router').flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith('rest-compat/'))
        .filter(() => rel(file) !== 'router/platform.server.ts'),
    );
    expect(routerToRest).toEqual([]);
  });

  it('each subgraph has the files the house style names', () => {
    for (const domain of domains) {
      for (const file of ['index.ts', 'facade.ts', 'README.md', 'migrations/index.ts']) {
        expect(statSync(join('subgraphs', domain, file)).isFile(), `subgraphs/${domain}/${file}`).toBe(true);
      }
    }
  });
});
