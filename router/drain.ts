import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { AppError } from '../subgraphs/shared/errors.js';
import { writeAppError } from '../subgraphs/shared/http.js';

/**
 * How long a connection must have stayed idle (no request in progress, no byte read since its
 * last answer) before a drain closes it: a client that loops sends its next request on it within
 * this, and is answered (with `Connection: close`) instead of racing the close.
 */
const IDLE_GRACE_MS = 2000;
const SWEEP_MS = 50;
/** At the end of the bound, a request that arrives is turned away at once rather than begun and cut off. */
const LAST_CALL_MS = 1000;
/** The longest wait for the port to be closed everywhere (a cluster's other workers) before connections are told to close. */
const LISTENING_END_MS = 2000;

/** 503 for a request that arrives too late in a graceful stop to be served; asked again after a second. */
class StoppingError extends AppError {
  constructor() {
    super(503, 'server_error', 'service_unavailable', 'The platform is stopping; try again shortly.');
    this.extensions.retry_after = 1;
  }
}

interface Connection {
  /** Requests begun on it and not yet answered. */
  open: number;
  idleSince: number;
  /** Its bytes read when it became idle: one more is a request on its way. */
  readAtIdle: number;
}

/**
 * The graceful stop of an HTTP server, tracking its connections from the start. Node's own
 * `close()` closes every idle keep-alive connection at once, racing clients that are sending
 * their next request on it (cut off without an answer). Here the port is closed first (wherever
 * it is served, see `close`), then every answer carries `Connection: close`, so a connection ends
 * after an answer, and one that stays idle is closed past a grace.
 */
export class Drain {
  private readonly connections = new Map<Socket, Connection>();
  private readonly answering = new Set<ServerResponse>();
  private draining = false;
  private deadline = Infinity;

  constructor(private readonly server: Server) {
    server.on('connection', (socket: Socket) => {
      this.connections.set(socket, { open: 0, idleSince: Date.now(), readAtIdle: 0 });
      socket.once('close', () => this.connections.delete(socket));
    });
    // Before the handler, which may answer at once.
    server.prependListener('request', (request: IncomingMessage, response: ServerResponse) => this.begun(request, response));
  }

  /**
   * A request that arrives in the last moments of a drain is answered here with a 503 and
   * `Retry-After`; the handler then leaves it (answers whether it must).
   */
  turnedAway(response: ServerResponse): boolean {
    if (!this.draining || Date.now() < this.deadline - LAST_CALL_MS) return false;
    writeAppError(response, new StoppingError());
    return true;
  }

  /**
   * Stops taking connections and lets the requests on those open be answered, for at most
   * `timeoutMs`; what still runs then is cut off. `listeningEnded` resolves once the port takes no
   * connection anywhere (a cluster's workers share it): until then answers keep their connections
   * open, since a client told to close would connect again to a worker that may be closing.
   */
  async close(timeoutMs: number, listeningEnded?: () => Promise<void>): Promise<void> {
    this.deadline = Date.now() + timeoutMs;
    // net's close, not http's: that one closes the idle connections at once.
    const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(this.server, () => resolve()));
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), timeoutMs)));
    let sweeping: NodeJS.Timeout | undefined;
    try {
      if (listeningEnded) await Promise.race([listeningEnded().catch(() => undefined), bound, sleep(Math.min(LISTENING_END_MS, timeoutMs))]);
      this.draining = true;
      for (const response of this.answering) if (!response.headersSent) response.shouldKeepAlive = false;
      this.sweep();
      sweeping = setInterval(() => this.sweep(), SWEEP_MS);
      if ((await Promise.race([closed, bound])) === 'timeout') {
        for (const socket of this.connections.keys()) socket.destroy();
        await closed;
      }
    } finally {
      clearInterval(sweeping);
      clearTimeout(timer);
    }
  }

  private begun(request: IncomingMessage, response: ServerResponse): void {
    if (this.draining) response.shouldKeepAlive = false;
    this.answering.add(response);
    const socket = request.socket;
    const connection = this.connections.get(socket);
    if (connection) connection.open++;
    response.once('close', () => {
      this.answering.delete(response);
      if (!connection || --connection.open > 0) return;
      connection.idleSince = Date.now();
      connection.readAtIdle = socket.bytesRead;
    });
  }

  /**
   * Closes the connections idle past the grace. Timers run before a turn reads what came in: after
   * a busy stretch, a request may wait unread on a connection that looks idle. So a connection is
   * looked at again once this turn has read, and closed only if it is idle still.
   */
  private sweep(): void {
    const idle = [...this.connections.keys()].filter((socket) => this.idlePastGrace(socket));
    if (idle.length > 0) setImmediate(() => idle.filter((socket) => this.idlePastGrace(socket)).forEach((socket) => socket.destroy()));
  }

  private idlePastGrace(socket: Socket): boolean {
    const connection = this.connections.get(socket);
    return connection !== undefined && connection.open === 0 && socket.bytesRead === connection.readAtIdle && Date.now() - connection.idleSince >= IDLE_GRACE_MS;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms).unref());
