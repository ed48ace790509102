import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { GRAPHQL_RESPONSE_TYPE, graphqlErrorBody, retryAfterHeader, StartingError } from '../subgraphs/shared/errors.js';
import { writeAppError } from '../subgraphs/shared/http.js';
import { bind, bindHeld } from '../subgraphs/shared/net.js';

/** The public port, held from the first moment of a start and taken over by the platform's listener once every part is up. */
export interface PortHold {
  /** Puts the platform's listener on the port; answers its URL. */
  takeOver(server: Server): Promise<string>;
}

/** The port held by this process, which a cluster's primary gives up for its workers to bind. */
export interface StartingListener extends PortHold {
  /** Closes the port and says which it was (PORT, or the one PORT=0 got); once, however often asked. */
  release(): Promise<number>;
}

/** The connections taken while starting are cut this long after the hold ends (a client that never finished its request). */
const HANDOVER_GRACE_MS = 1000;

/**
 * Holds the public port from the first moment of a start, which takes seconds (the embedded
 * database, the migrations, the subgraphs, the schema), and answers there: `/healthz` with 503
 * `{"status":"starting"}` (the contract's "503 otherwise", where the port would otherwise refuse
 * connections), every other request with 503 and the contract's error body (on `/graphql`, as a
 * GraphQL error), each with a Retry-After of a second. A port that is taken fails the start here,
 * before anything else starts. Every answer closes its connection, so none outlives the hold.
 *
 * In one process the platform's listener takes the listening socket itself over, so the port is
 * never closed; a cluster's primary closes it when its first worker is ready, and the workers bind
 * it (Node's cluster owns that socket), a moment in which connections are refused.
 */
export async function holdWhileStarting(host: string, port: number): Promise<StartingListener> {
  const holder = createServer(answerStarting);
  const held = Number(new URL(await bind(holder, host, port, 'PORT')).port);
  let ended = false;
  /** The requests taken meanwhile are answered; then whatever is still open is cut. */
  const end = () => {
    ended = true;
    setTimeout(() => holder.closeAllConnections(), HANDOVER_GRACE_MS).unref();
  };
  return {
    takeOver: async (server) => {
      const url = await bindHeld(server, holder, host);
      end();
      return url;
    },
    release: async () => {
      if (!ended) {
        holder.close();
        end();
      }
      return held;
    },
  };
}

function answerStarting(request: IncomingMessage, response: ServerResponse): void {
  response.shouldKeepAlive = false;
  // Nothing is read of a body: it is drained so that the answer goes out whole.
  request.resume();
  const path = new URL(request.url ?? '/', 'http://router').pathname;
  const error = new StartingError();
  if (path === '/healthz') {
    response.writeHead(503, { 'content-type': 'application/json', ...retryAfterHeader(error) }).end(JSON.stringify({ status: 'starting' }));
  } else if (path === '/graphql') {
    response.writeHead(503, { 'content-type': GRAPHQL_RESPONSE_TYPE, ...retryAfterHeader(error) }).end(graphqlErrorBody(error));
  } else {
    writeAppError(response, error);
  }
}
