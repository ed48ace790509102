import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { retryAfterHeader, StartingError } from '../../subgraphs/shared/errors.js';
import { isHealthPath } from '../../subgraphs/shared/health.js';
import { writeAppError } from '../../subgraphs/shared/http.js';
import { bind, bindHeld } from '../../subgraphs/shared/net.js';
import type { PortHold } from '../listener.ports.js';

/** The port held by this process, which a cluster's primary gives up for its workers to bind. */
export interface StartingListener extends PortHold {
  /** Closes the port and says which it was (PORT, or the one PORT=0 got); once, however often asked. */
  release(): Promise<number>;
  /** The platform listens on the port now: the requests held meanwhile go to it. */
  forward(): void;
}

interface Held {
  request: IncomingMessage;
  response: ServerResponse;
}

/**
 * Holds the public port from the first moment of a start, which takes seconds (the embedded
 * database, the migrations, the subgraphs, the schema). `/healthz` is answered there at once: 503
 * `{"status":"starting"}` with a Retry-After of a second, as the contract has it ("503 otherwise"),
 * where the port would otherwise refuse connections. Any other request is held, unread, until the
 * platform listens, then sent to it and answered as it answers: a client that only waited for the
 * port to open is served, later. A websocket is refused (its client connects again). A port that is
 * taken fails the start here, before anything else starts. Each connection taken here carries one
 * request, so none outlives the hold.
 *
 * In one process the platform's listener takes the listening socket itself over, so the port is
 * never closed; a cluster's primary closes it when its first worker is ready, and the workers bind
 * it (Node's cluster owns that socket), a moment in which connections are refused (or reset, those
 * still queued on the closing socket: none of them was read).
 */
export async function holdWhileStarting(host: string, port: number): Promise<StartingListener> {
  const held = new Set<Held>();
  let listening: number | undefined;
  const holder = createServer((request, response) => {
    response.shouldKeepAlive = false;
    if (isHealthPath(new URL(request.url ?? '/', 'http://router').pathname)) return answerStarting(request, response);
    const waiting = { request, response };
    if (listening !== undefined) return relay(waiting, host, listening);
    held.add(waiting);
    response.once('close', () => held.delete(waiting));
  });
  const address = Number(new URL(await bind(holder, host, port, 'PORT')).port);
  let ended = false;
  const forward = () => {
    listening = address;
    for (const waiting of held) relay(waiting, host, address);
    held.clear();
  };
  return {
    takeOver: async (server) => {
      const url = await bindHeld(server, holder, host);
      ended = true;
      forward();
      return url;
    },
    release: async () => {
      if (!ended) holder.close();
      ended = true;
      return address;
    },
    forward,
  };
}

/** `/healthz` (and its detail) while starting. */
function answerStarting(request: IncomingMessage, response: ServerResponse): void {
  request.resume();
  response.writeHead(503, { 'content-type': 'application/json', ...retryAfterHeader(new StartingError()) }).end(JSON.stringify({ status: 'starting' }));
}

/** Headers of one hop only: not passed on. */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'upgrade']);

/** Sends a held request to the platform, now listening on `port`, and its answer back as it comes. */
function relay({ request, response }: Held, host: string, port: number): void {
  const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !HOP_HEADERS.has(name)));
  const upstream = httpRequest({ host: reachable(host), port, method: request.method, path: request.url, headers, agent: false }, (answer) => {
    const answerHeaders = Object.fromEntries(Object.entries(answer.headers).filter(([name, value]) => value !== undefined && !HOP_HEADERS.has(name)));
    response.writeHead(answer.statusCode ?? 502, answerHeaders as Record<string, string | string[]>);
    answer.pipe(response);
  });
  upstream.on('error', () => {
    if (response.headersSent) response.destroy();
    else writeAppError(response, new StartingError());
  });
  request.pipe(upstream);
}

/** Where this process reaches a listener bound to `host` (a wildcard address is reached on loopback). */
function reachable(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '::1';
  return host;
}
