import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ConfigError, config } from '../subgraphs/shared/config.js';
import { errorBody, NotFoundError, PayloadTooLargeError } from '../subgraphs/shared/errors.js';
import { readBody, toRequest, writeResponse } from '../subgraphs/shared/http.js';
import { createLogger } from '../subgraphs/shared/logger.js';
import { routerExecutor } from './executors.js';
import { createRest } from './rest.js';

/**
 * `node dist/rest-compat/main.js`: the REST layer alone, on PORT, sending every operation over
 * HTTP to the router at ROUTER_URL (callers' Authorization headers pass through unchanged).
 */
async function main(): Promise<void> {
  const settings = config();
  const log = createLogger(settings.LOG_LEVEL, 'rest');
  const rest = createRest({
    apiSdl: readFileSync(resolve(process.cwd(), 'schema/api.graphql'), 'utf8'),
    execute: routerExecutor((request) => fetch(request), settings.ROUTER_URL),
    log,
  });
  const server = createServer((request, response) => {
    const respond = async () => {
      const path = new URL(request.url ?? '/', 'http://rest').pathname;
      const failure = path === '/api' || path.startsWith('/api/') ? null : new NotFoundError();
      const body = failure ? null : await readBody(request, settings.MAX_BODY_BYTES);
      const error = failure ?? (body === null ? new PayloadTooLargeError(settings.MAX_BODY_BYTES) : null);
      if (error) {
        const { status, body: errorJson } = errorBody(error);
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(errorJson));
        return;
      }
      await writeResponse(await rest.handle(toRequest(request, body!)), response);
    };
    respond().catch((error: unknown) => {
      log.error({ err: error }, 'REST request failed');
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null }));
    });
  });
  server.listen(settings.PORT, settings.HOST, () => {
    const { port } = server.address() as AddressInfo;
    process.stdout.write(`REST layer listening on http://${settings.HOST}:${port}, routing to ${settings.ROUTER_URL}\n`);
  });
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof ConfigError ? error.message : `start-up failed: ${(error as Error).message}`}\n`);
  process.exit(1);
});
