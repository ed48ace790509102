import SwaggerParser from '@apidevtools/swagger-parser';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { createRest } from '../../rest-compat/rest.js';
import { createLogger } from '../../subgraphs/shared/logger.js';

export type Json = Record<string, any>;

/** What @apidevtools/swagger-parser says of a document: null when it validates. */
export async function swaggerParserError(document: Json): Promise<string | null> {
  try {
    // It dereferences in place: a copy keeps the caller's document as it was.
    await SwaggerParser.validate(structuredClone(document) as never);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** Redocly's problems with a document under its `spec` ruleset (`rule at pointer: message`). */
export async function redoclySpecProblems(document: Json): Promise<string[]> {
  const config = await createConfig({ extends: ['spec'] });
  const problems = await lintFromString({ source: JSON.stringify(document), absoluteRef: 'openapi.json', config });
  return problems.map((problem) => `${problem.severity} ${problem.ruleId} at ${problem.location[0]?.pointer ?? '?'}: ${problem.message}`);
}

/** `/api/schema/` as the REST layer builds it, without a running platform. */
export function restOpenApiDocument(apiSdl: string): Json {
  const rest = createRest({
    apiSdl,
    execute: () => Promise.reject(new Error('not executed')),
    subscribe: () => {
      throw new Error('not subscribed');
    },
    log: createLogger('silent'),
  });
  return rest.openapi as Json;
}
