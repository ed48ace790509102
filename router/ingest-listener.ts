import { createServer } from 'node:http';
import { answerClientErrors } from '../subgraphs/shared/client-error.js';
import { NotFoundError } from '../subgraphs/shared/errors.js';
import { isBatchPath, logAborts, methodsWithIngest, RequestAbortedError, writeAppError, writeServerError } from '../subgraphs/shared/http.js';
import { isHealthPath, writeHealth, type HealthCheck } from '../subgraphs/shared/health.js';
import type { Logger } from '../subgraphs/shared/logger.js';
import { Drain } from './drain.js';
import { bind } from '../subgraphs/shared/net.js';
import { InFlight } from '../subgraphs/shared/in-flight.js';
import { answerIngest, type IngestHandler, type Listener } from './listener.js';
import { loggableUrl } from '../subgraphs/shared/auth/key-parameter.js';

export interface IngestListenerOptions {
  host: string;
  /** INGEST_PORT: an `{ingest_url}` of its own, apart from the API's port. */
  port: number;
  ingest: IngestHandler;
  health: HealthCheck;
  maxIngestBodyBytes: number;
  /** As the main listener's (ListenerOptions). */
  listeningEnded?: () => Promise<void>;
  log: Logger;
}

/**
 * The listener of its own that INGEST_PORT asks for (an `{ingest_url}` apart from the API's):
 * `/batch/` and `/healthz` (with its detail), nothing else.
 */
export async function listenIngest(options: IngestListenerOptions): Promise<Listener> {
  const inFlight = new InFlight();
  const server = createServer((request, response) => {
    logAborts(options.log, request, response);
    if (drain.turnedAway(response)) return;
    const path = new URL(request.url ?? '/', 'http://ingest').pathname;
    const served = async () => {
      if (isHealthPath(path)) {
        await writeHealth(response, path, options.health);
      } else if (isBatchPath(path)) {
        await answerIngest(request, response, options.ingest, options.maxIngestBodyBytes);
      } else {
        writeAppError(response, new NotFoundError());
      }
    };
    inFlight.track(served()).catch((error: unknown) => {
      if (error instanceof RequestAbortedError) return;
      options.log.error({ err: error, url: loggableUrl(request.url) }, 'ingest request failed');
      writeServerError(response);
    });
  });
  const drain = new Drain(server);
  answerClientErrors(server, methodsWithIngest(() => []));
  const url = await bind(server, options.host, options.port, 'INGEST_PORT');
  return {
    url,
    server,
    close: async (graceMs = 0) => {
      const deadline = Date.now() + graceMs;
      await drain.close(graceMs, options.listeningEnded);
      await inFlight.settled(Math.max(0, deadline - Date.now()));
    },
  };
}
