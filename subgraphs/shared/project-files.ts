import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A file of the repository (`schema/api.graphql`), wherever the process was started from: looked
 * for from this module upwards (the sources, `dist/` and the tests' build all sit below the root).
 * A service manager may start `node …/dist/router/process/main.js` in any working directory.
 */
export function projectFile(relative: string): string {
  const here = fileURLToPath(import.meta.url);
  for (let dir = dirname(here); ; dir = dirname(dir)) {
    const candidate = join(dir, relative);
    if (existsSync(candidate)) return candidate;
    if (dirname(dir) === dir) throw new Error(`${relative} not found in any directory above ${here}`);
  }
}
