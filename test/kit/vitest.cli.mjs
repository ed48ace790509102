// `npm test`: vitest's own command line, except that a mistake in the call (an unknown option)
// prints one line and the usage and exits 2, as every command of the platform does, instead of
// vitest's stack trace. Plain JavaScript: it runs before anything is compiled.
import process from 'node:process';
import { URL } from 'node:url';

const cli = new URL('../vitest.mjs', import.meta.resolve('vitest'));
try {
  await import(cli.href);
} catch (error) {
  if (error?.name !== 'CACError') throw error;
  process.stderr.write(`error: ${error.message}\nusage: npm test [-- [vitest options] [file filters]]   (npm test -- --help lists vitest's options)\n`);
  process.exit(2);
}
