import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/** What every patched hunk says of itself, so that a file can be seen to hold the patch. */
const MARK = 'Patched (analytics-platform, patches/)';

/** `patches/@scope+name+1.2.3.patch` → the package, its version and the files it changes. */
function patches(): { file: string; name: string; version: string; files: string[] }[] {
  return readdirSync('patches').map((file) => {
    const [, name, version] = /^(.+)\+([^+]+)\.patch$/.exec(file)!;
    const text = readFileSync(join('patches', file), 'utf8');
    const files = [...text.matchAll(/^\+\+\+ b\/(\S+)$/gm)].map((match) => match[1]!);
    return { file, name: name!.replace('+', '/'), version: version!, files };
  });
}

/**
 * The install applies `patches/` (patch-package, the postinstall script). An install that skipped
 * it (`--ignore-scripts`), or a dependency moved to a version its patch was not written for, would
 * leave the router slower without any test failing: this is that test.
 */
describe('dependency patches', () => {
  it.each(patches())('$file is installed', ({ name, version, files }) => {
    const installed = JSON.parse(readFileSync(join('node_modules', name, 'package.json'), 'utf8')) as { version: string };
    expect(installed.version).toBe(version);
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) expect(readFileSync(file, 'utf8'), file).toContain(MARK);
  });
});
