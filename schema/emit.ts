import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { cliProgram, runCommand } from '../subgraphs/shared/cli.js';

const program = cliProgram(
  'npm run schema:emit',
  'Writes every generated file of schema/ from the code: each subgraph SDL, the supergraph, the public API schema and the OpenAPI document.',
);

/** `npm run schema:emit`: writes every generated file of schema/ from the code, once its arguments are known good. */
async function main(): Promise<void> {
  // The platform's code only once the call is known good: the help and a mistake answer at once.
  const { generatedArtefacts } = await import('./artefacts.js');
  const artefacts = await generatedArtefacts();
  for (const [file, text] of Object.entries(artefacts)) {
    const path = resolve(process.cwd(), file);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    process.stderr.write(`wrote ${file}\n`);
  }
  process.exit(0);
}

runCommand(program, 'schema:emit failed', main);
