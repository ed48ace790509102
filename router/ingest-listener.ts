import { createServer } from 'node:http';
import { NotFoundError } from '../subgraphs/shared/errors.js';
import { isBatchPath, writeAppError, writeServerError } from '../subgraphs/shared/http.js';
import type { Logger } from '../subgraphs/shared/logger.js';
import { bind, closeGracefully } from '../subgraphs/shared/net.js';
import { answerIngest, writeHealth, type IngestHandler, type Listener } from './listener.js';

export interface IngestListenerOptions {
  host: string;
  /** INGEST_PORT: an `{ingest_url}` of its own, apart from the API's port. */
  port: number;
  ingest: IngestHandler;
  healthy: () => Promise<boolean>;
  maxIngestBodyBytes: number;
  log: Logger;
}

/**
 * The listener of its own that INGEST_PORT asks for (an `{ingest_url}` apart from the API's):
 * `/batch/` and `/healthz`, nothing else.
 */
export async function listenIngest(options: IngestListenerOptions): Promise<Listener> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://ingest').pathname;
    const served = async () => {
      if (path === '/healthz') {
        await writeHealth(response, options.healthy);
      } else if (isBatchPath(path)) {
        await answerIngest(request, response, options.ingest, options.maxIngestBodyBytes);
      } else {
        writeAppError(response, new NotFoundError());
      }
    };
    served().catch((error: unknown) => {
      options.log.error({ err: error, url: request.url }, 'ingest request failed');
      writeServerError(response);
    });
  });
  const url = await bind(server, options.host, options.port, 'INGEST_PORT');
  return {
    url,
    server,
    close: (graceMs = 0) => closeGracefully(server, graceMs),
  };
}
