import { createRequire } from 'node:module';
import swc from 'unplugin-swc';
import { defineConfig } from 'vitest/config';

const require = createRequire(import.meta.url);

export default defineConfig({
  // esbuild emits no decorator metadata; type-graphql and MikroORM need it.
  plugins: [swc.vite({ jsc: { target: 'es2022', transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false } } })],
  resolve: {
    // Node loads graphql's CommonJS build for every importer; make the tests do the same, so that
    // one module instance (one GraphQLSchema class) serves our code and the libraries alike.
    alias: { graphql: require.resolve('graphql') },
  },
  test: {
    include: ['subgraphs/**/*.test.ts', 'router/**/*.test.ts', 'rest-compat/**/*.test.ts', 'schema/**/*.test.ts', 'test/**/*.test.ts'],
    globalSetup: ['test/kit/global-setup.ts'],
    setupFiles: ['test/kit/setup.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 120_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
  },
});
