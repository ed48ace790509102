import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('graphql-mode', () => {
  it("loads graphql-js's instanceOf in its production form and leaves NODE_ENV as it was (the built module, in a fresh process)", () => {
    const script = `
      await import('./dist/subgraphs/shared/graphql-mode.js');
      const { createRequire } = await import('node:module');
      const { instanceOf } = createRequire(import.meta.url)('graphql/jsutils/instanceOf.js');
      class Other { get [Symbol.toStringTag]() { return 'GraphQLObjectType'; } }
      const { GraphQLObjectType } = await import('graphql');
      // The development form throws on a foreign object that calls itself a graphql-js class.
      console.log(JSON.stringify({ env: process.env.NODE_ENV ?? null, foreign: instanceOf(new Other(), GraphQLObjectType) }));`;
    for (const env of ['development', undefined]) {
      const output = execFileSync(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, NODE_ENV: env }, encoding: 'utf8' });
      expect(JSON.parse(output)).toEqual({ env: env ?? null, foreign: false });
    }
  });
});
