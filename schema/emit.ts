import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { generatedArtefacts } from './artefacts.js';

/** `npm run schema:emit`: writes every generated file of schema/ from the code. */
const artefacts = await generatedArtefacts();
for (const [file, text] of Object.entries(artefacts)) {
  const path = resolve(process.cwd(), file);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
  process.stderr.write(`wrote ${file}\n`);
}
process.exit(0);
