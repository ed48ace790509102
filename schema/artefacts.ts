import { createRest } from '../rest-compat/rest.js';
import { subgraphs } from '../subgraphs/index.js';
import { createLogger } from '../subgraphs/shared/logger.js';
import { buildSubgraphSdl } from '../subgraphs/shared/subgraph/build.js';
import { compose, GENERATED_HEADER, readSupergraphConfig, withHeader } from './compose.js';

/**
 * Every generated file of schema/, by path, as the code makes it now: the subgraphs' SDL, the
 * composed supergraph, the public API schema and the REST layer's OpenAPI document.
 */
export async function generatedArtefacts(): Promise<Record<string, string>> {
  const config = readSupergraphConfig();
  const files: Record<string, string> = {};
  const services = [];
  for (const entry of config) {
    const subgraph = subgraphs.find((candidate) => candidate.name === entry.name);
    if (!subgraph) throw new Error(`supergraph.yaml names ${entry.name}, which subgraphs/index.ts does not list`);
    const sdl = await buildSubgraphSdl(subgraph);
    files[entry.file.replace(/^\.\//, '')] = withHeader(sdl);
    services.push({ name: entry.name, url: entry.routing_url, sdl });
  }
  const { supergraph, api } = compose(services);
  files['schema/supergraph.graphql'] = withHeader(supergraph);
  files['schema/api.graphql'] = withHeader(api);
  files['schema/openapi.json'] = openApiJson(api);
  return files;
}

/** The REST layer's OpenAPI document, as `/api/schema/` serves it. */
function openApiJson(apiSdl: string): string {
  const rest = createRest({ apiSdl, execute: () => Promise.reject(new Error('not executed')), subscribe: () => { throw new Error('not subscribed'); }, log: createLogger('silent') });
  const document = { 'x-generated': GENERATED_HEADER.replace(/^# /, ''), ...rest.openapi };
  return `${JSON.stringify(document, null, 2)}\n`;
}
