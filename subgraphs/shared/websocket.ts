import { WebSocket, type WebSocketServer } from 'ws';
import type { Logger } from './logger.js';

/** The reasons of the codes ws closes with on its own (RFC 6455), which it sends without one. */
const REASONS: Record<number, string> = {
  1002: 'Protocol error',
  1007: 'Invalid message data',
  1009: 'Message too big',
};

/**
 * A server-side socket whose closes always say why: ws answers a message over `maxPayload` with
 * 1009 and an empty reason, which a client shows its user as nothing. The WebSocketServer's
 * `WebSocket` option.
 */
export class ReasonedWebSocket extends WebSocket {
  override close(code?: number, reason?: string | Buffer): void {
    super.close(code, reason ?? (code === undefined ? undefined : REASONS[code]));
  }
}

/**
 * Call after graphql-ws's `useServer` (a socket's listeners run in the order they were added):
 * graphql-ws answers an error on a socket by printing it with its stack on stderr. Those errors
 * are the client's protocol faults (a message over `maxPayload`, a malformed frame), which ws has
 * already answered by closing with the code that names them: a debug line is their record.
 */
export function logSocketErrors(sockets: WebSocketServer, log: Logger): void {
  sockets.on('connection', (socket: WebSocket) => {
    socket.removeAllListeners('error');
    socket.on('error', (error: Error & { code?: string }) => log.debug({ code: error.code, reason: error.message }, 'websocket closed for a protocol error by the client'));
  });
}
