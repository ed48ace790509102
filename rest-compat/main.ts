import '../subgraphs/shared/graphql-mode.js';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { answerClientErrors } from '../subgraphs/shared/client-error.js';
import { ConfigError, config } from '../subgraphs/shared/config.js';
import { NotFoundError, PayloadTooLargeError, ServiceUnavailableError } from '../subgraphs/shared/errors.js';
import {
  isBatchPath,
  methodsWithIngest,
  logAborts,
  readBody,
  RequestAbortedError,
  toRequest,
  UNCARRIED_METHODS,
  writeAppError,
  writeMethodNotAllowed,
  writeResponse,
  writeServerError,
} from '../subgraphs/shared/http.js';
import { isHealthPath, peerHealth, writeHealth, type Health } from '../subgraphs/shared/health.js';
import { createLogger } from '../subgraphs/shared/logger.js';
import { routerExecutor, routerSubscriber, routerUnavailable } from './executors.js';
import { createRest } from './rest.js';
import { projectFile } from '../subgraphs/shared/project-files.js';

/**
 * `node dist/rest-compat/main.js`: the REST layer alone (`/api/...`, `/batch/` and `/healthz`), on
 * PORT, sending every operation over HTTP to the router at ROUTER_URL (callers' Authorization
 * headers pass through unchanged), and `/batch/` to the router's own. It serves while the router
 * does; its `/healthz/detail` is the router's, with the router itself.
 */
async function main(): Promise<void> {
  const settings = config();
  const log = createLogger(settings.LOG_LEVEL, 'rest');
  const rest = createRest({
    apiSdl: readFileSync(projectFile('schema/api.graphql'), 'utf8'),
    execute: routerExecutor((request) => fetch(request), settings.ROUTER_URL),
    subscribe: routerSubscriber((request) => fetch(request), settings.ROUTER_URL),
    log,
    maxIngestBodyBytes: settings.MAX_INGEST_BODY_BYTES,
  });
  const apiBodyLimit = (method: string, url: string) =>
    rest.takesLargeBody(method, url) ? Math.max(settings.MAX_LARGE_BODY_BYTES, settings.MAX_BODY_BYTES) : settings.MAX_BODY_BYTES;
  // The router's /graphql bounds anonymous bodies at MAX_BODY_BYTES, and a batch has no personal
  // key: the router's own /batch/ (the same ingest handler) takes it whole.
  const routerBatch = new URL('/batch/', settings.ROUTER_URL);
  const forwardBatch = (request: IncomingMessage, url: URL, body: Buffer) => {
    const headers: Record<string, string> = {};
    for (const name of ['content-type', 'content-encoding']) if (typeof request.headers[name] === 'string') headers[name] = request.headers[name];
    return fetch(new URL(url.search, routerBatch), { method: request.method, headers, body: request.method === 'GET' || request.method === 'HEAD' ? undefined : new Uint8Array(body) });
  };
  const server = createServer((request, response) => {
    logAborts(log, request, response);
    const respond = async () => {
      const url = new URL(request.url ?? '/', 'http://rest');
      if (isHealthPath(url.pathname)) return writeHealth(response, url.pathname, () => routerHealth(settings.ROUTER_URL));
      const batch = isBatchPath(url.pathname);
      if (!batch && url.pathname !== '/api' && !url.pathname.startsWith('/api/')) return writeAppError(response, new NotFoundError());
      if (!batch && UNCARRIED_METHODS.has(request.method ?? '')) return writeMethodNotAllowed(response, request.method!, rest.allowedMethods(request.url ?? '/'));
      const limit = batch ? settings.MAX_INGEST_BODY_BYTES : apiBodyLimit(request.method ?? 'GET', request.url ?? '/');
      const body = await readBody(request, limit);
      if (body === null) return writeAppError(response, new PayloadTooLargeError(limit));
      const answer = batch ? await forwardBatch(request, url, body).catch(() => undefined) : await rest.handle(toRequest(request, body));
      if (!answer) return writeAppError(response, new ServiceUnavailableError(routerUnavailable().message));
      await writeResponse(answer, response);
    };
    respond().catch((error: unknown) => {
      if (error instanceof RequestAbortedError) return;
      log.error({ err: error }, 'REST request failed');
      writeServerError(response);
    });
  });
  answerClientErrors(server, methodsWithIngest(rest.allowedMethods));
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

/** The REST layer alone needs only the router: its health, with the router named as a part. */
async function routerHealth(routerUrl: string): Promise<Health> {
  const router = await peerHealth(routerUrl);
  return { serving: router.serving, parts: { router: router.serving, ...router.parts } };
}
