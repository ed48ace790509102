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

/** The sets of product files (tests aside) that import each other in a circle, each sorted. */
function importCircles(folders: string[]): string[][] {
  const files = folders.flatMap(sourceFiles).map(rel).filter((file) => !file.endsWith('.test.ts'));
  const known = new Set(files);
  const edges = new Map(files.map((file) => [file, importsOf(file).filter((target) => known.has(target))]));
  // Tarjan's strongly connected components: a component of more than one file is a circle.
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const circles: string[][] = [];
  const visit = (file: string) => {
    order.set(file, order.size);
    low.set(file, order.get(file)!);
    stack.push(file);
    for (const target of edges.get(file)!) {
      if (!order.has(target)) visit(target);
      if (stack.includes(target)) low.set(file, Math.min(low.get(file)!, low.get(target)!));
    }
    if (low.get(file) !== order.get(file)) return;
    const component = stack.splice(stack.indexOf(file));
    if (component.length > 1) circles.push(component.sort());
  };
  for (const file of files) if (!order.has(file)) visit(file);
  return circles;
}
/** Domain subgraphs; `shared/` is the kit. */
const domains = readdirSync('subgraphs').filter((name) => name !== 'shared' && statSync(join('subgraphs', name)).isDirectory());

/**
 * What only subgraphs are built from (the builder and runtime, context, arguments, pagination,
 * scalars; the database; the job queue), inside the kit's folder: the rest of `subgraphs/shared/`
 * is the platform kit that the router, the REST layer and the process model use as well.
 */
const BUILDING_BLOCKS = ['subgraphs/shared/subgraph/', 'subgraphs/shared/db/', 'subgraphs/shared/jobs/'];
const isBuildingBlock = (file: string) => BUILDING_BLOCKS.some((folder) => file.startsWith(folder));

/** The process model: what `npm start` and the platform's commands run, the one layer that assembles every other. */
const PROCESS_MODEL = 'router/process/';

/** `npm run import`: one of the platform's commands, and a client of `/batch/` like any other. */
const IMPORTER = 'router/process/cli/import/';

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

  it('subgraphs depend on each other in one direction: no circle of facades (tests aside)', () => {
    // Every subgraph builds on projects (organizations, environments); accounts asks projects where
    // a user is placed, so projects keeps what it needs of a user (its uuid) and never asks back.
    const dependsOn = new Map(
      domains.map((domain) => {
        const targets = sourceFiles(join('subgraphs', domain))
          .filter((file) => !file.endsWith('.test.ts'))
          .flatMap(importsOf)
          .map((target) => /^subgraphs\/([^/]+)\/facade\.ts$/.exec(target)?.[1])
          .filter((target): target is string => target !== undefined && target !== domain);
        return [domain, new Set(targets)];
      }),
    );
    const reaches = (from: string, to: string, seen = new Set<string>()): boolean =>
      [...dependsOn.get(from)!].some((next) => next === to || (!seen.has(next) && (seen.add(next), reaches(next, to, seen))));
    const circular = domains.filter((domain) => reaches(domain, domain));
    expect(circular).toEqual([]);
  });

  it('the shared kit imports no subgraph, router or REST code', () => {
    const offending = sourceFiles('subgraphs/shared').flatMap((file) =>
      importsOf(file)
        .filter((target) => !target.startsWith('subgraphs/shared/'))
        // Its tests that run the built code find it through the test kit.
        .filter((target) => !(file.endsWith('.test.ts') && target.startsWith('test/kit/')))
        .map((target) => `${rel(file)} -> ${target}`),
    );
    expect(offending).toEqual([]);
  });

  it('the platform kit (subgraphs/shared/ outside its building-block folders) imports no building block', () => {
    const offending = sourceFiles('subgraphs/shared')
      .filter((file) => !isBuildingBlock(rel(file)) && !file.endsWith('.test.ts'))
      .flatMap((file) => importsOf(file).filter(isBuildingBlock).map((target) => `${rel(file)} -> ${target}`));
    expect(offending).toEqual([]);
  });

  it('the router and the REST layer use the platform kit, not the subgraphs\' building blocks', () => {
    const offending = [...sourceFiles('router'), ...sourceFiles('rest-compat')]
      .filter((file) => !rel(file).startsWith(PROCESS_MODEL) && !file.endsWith('.test.ts'))
      .flatMap((file) => importsOf(file).filter(isBuildingBlock).map((target) => `${rel(file)} -> ${target}`));
    expect(offending).toEqual([]);
  });

  it('the router and the REST layer see the shared kit, not subgraph internals', () => {
    const offending = [...sourceFiles('router'), ...sourceFiles('rest-compat')]
      .filter((file) => !rel(file).startsWith(PROCESS_MODEL))
      .flatMap((file) =>
        importsOf(file)
          .filter((target) => target.startsWith('subgraphs/') && !target.startsWith('subgraphs/shared/'))
          .map((target) => `${rel(file)} -> ${target}`),
      );
    expect(offending).toEqual([]);
  });

  it('the process model assembles the subgraphs through the registry and their facades only', () => {
    const offending = sourceFiles(PROCESS_MODEL).flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith('subgraphs/') && !target.startsWith('subgraphs/shared/'))
        .filter((target) => target !== 'subgraphs/index.ts' && !/^subgraphs\/[^/]+\/facade\.ts$/.test(target))
        .map((target) => `${rel(file)} -> ${target}`),
    );
    expect(offending).toEqual([]);
  });

  it('the importer is a client of the API: it sees the kit, nothing of the platform it sends to', () => {
    const offending = sourceFiles(IMPORTER).flatMap((file) =>
      importsOf(file)
        .filter((target) => !target.startsWith(IMPORTER) && !target.startsWith('subgraphs/shared/'))
        .map((target) => `${rel(file)} -> ${target}`),
    );
    expect(offending).toEqual([]);
  });

  it('nothing but the process model (and the tests) imports the process model', () => {
    const offending = [...sourceFiles('router'), ...sourceFiles('rest-compat'), ...sourceFiles('subgraphs'), ...sourceFiles('schema')]
      .filter((file) => !rel(file).startsWith(PROCESS_MODEL) && !file.endsWith('.test.ts'))
      .flatMap((file) => importsOf(file).filter((target) => target.startsWith(PROCESS_MODEL)).map((target) => `${rel(file)} -> ${target}`));
    expect(offending).toEqual([]);
  });

  it('the REST layer never calls the router\'s internals, nor the router the REST layer\'s, except where the process model mounts it', () => {
    const restToRouter = sourceFiles('rest-compat').flatMap((file) => importsOf(file).filter((target) => target.startsWith('router/')));
    expect(restToRouter).toEqual([]);
    const routerToRest = sourceFiles('router')
      .filter((file) => !rel(file).startsWith(PROCESS_MODEL))
      .flatMap((file) => importsOf(file).filter((target) => target.startsWith('rest-compat/')));
    expect(routerToRest).toEqual([]);
  });

  it('no file imports back a file that imports it (type imports too), outside the HogQL compiler', () => {
    // The compiler's expressions, functions and clauses call each other as the grammar nests: one
    // recursion, kept inside its folder. Everywhere else a shared type goes into a file of its own.
    const circles = importCircles(['router', 'rest-compat', 'subgraphs', 'schema']).filter(
      (circle) => !circle.every((file) => file.startsWith('subgraphs/endpoints/hogql/')),
    );
    expect(circles).toEqual([]);
  });

  it('each subgraph has the files the house style names', () => {
    for (const domain of domains) {
      for (const file of ['index.ts', 'facade.ts', 'README.md', 'migrations/index.ts']) {
        expect(statSync(join('subgraphs', domain, file)).isFile(), `subgraphs/${domain}/${file}`).toBe(true);
      }
    }
  });
});
