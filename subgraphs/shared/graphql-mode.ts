import { createRequire } from 'node:module';

/**
 * Loads graphql-js's `instanceOf` in its production form, whatever NODE_ENV says. Outside
 * NODE_ENV=production, graphql-js follows every type test that fails (`isObjectType` on a scalar:
 * thousands a request) with a search for a second copy of itself by class name, a cost that shows
 * in a busy worker's profile (test/bench/RESULTS.md). It reads NODE_ENV once, when that module
 * loads; so this module, imported first by each serving entry point, loads it under
 * NODE_ENV=production and puts NODE_ENV back, and nothing else sees the change. (A second copy of
 * graphql-js is a build mistake; the tests, which load graphql-js on their own, still report one.)
 */
const previous = process.env.NODE_ENV;
process.env.NODE_ENV = 'production';
try {
  createRequire(import.meta.url)('graphql/jsutils/instanceOf.js');
} finally {
  if (previous === undefined) delete process.env.NODE_ENV;
  else process.env.NODE_ENV = previous;
}
