import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * Packages that every worker loads at start and that npm would otherwise install once per parent
 * asking for another major, each copy loaded and compiled again: a large part of a worker's start
 * (docs/testing.md). package.json's overrides give every parent the root's copy; a dependency
 * update that brings a second copy back fails here instead of slowing every start.
 */
const ONE_COPY = ['@graphql-tools/utils', '@theguild/federation-composition'];

describe('dependencies loaded at start', () => {
  it.each(ONE_COPY)('install %s once', (name) => {
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, unknown> };
    const copies = Object.keys(lock.packages).filter((path) => path.endsWith(`node_modules/${name}`));
    expect(copies).toEqual([`node_modules/${name}`]);
  });
});
