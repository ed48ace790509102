import { existsSync, readFileSync } from 'node:fs';
import semver from 'semver';
import { describe, expect, it } from 'vitest';

interface LockEntry {
  engines?: { node?: string } | string[];
}

const manifest = JSON.parse(readFileSync('package.json', 'utf8')) as { engines: { node: string } };
const floor = semver.minVersion(manifest.engines.node)!;

/**
 * The Node.js floor is package.json's `engines.node`, and the README says the same. A dependency
 * that asks for a newer Node (sync-fetch 0.7, through the gateway's laboratory, asked for 22.12)
 * is overridden or pinned to a version that does not, or the floor moves, with a reason.
 */
describe('the Node.js floor', () => {
  it('is accepted by every package the install put in place', () => {
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, LockEntry> };
    const refusing = Object.entries(lock.packages)
      // An optional package whose engines refuse the running Node is skipped by npm, not installed.
      .filter(([path]) => path !== '' && existsSync(path))
      .map(([path, entry]) => ({ path, node: Array.isArray(entry.engines) ? undefined : entry.engines?.node }))
      .filter(({ node }) => node !== undefined && !semver.satisfies(floor, node))
      .map(({ path, node }) => `${path}: ${node}`);
    expect(refusing).toEqual([]);
  });

  it('is the one the README states', () => {
    expect(readFileSync('README.md', 'utf8')).toContain(`Node.js ${floor.major}.${floor.minor} or newer`);
  });
});
