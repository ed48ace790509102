import type { Server } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { ConfigError } from './config.js';

/**
 * A TCP port free on the loopback interface right now, taken below Linux's ephemeral range
 * (32768–60999): a port the kernel handed out for `listen(0)` is one it hands out again as the
 * local port of outgoing connections, so in the seconds before the caller binds it a connection
 * to the database could take it ("already in use" at start-up, seen in CI).
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 64; attempt++) {
    const port = QUIET_PORTS.low + Math.floor(Math.random() * (QUIET_PORTS.high - QUIET_PORTS.low));
    if (await canListen(port)) return port;
  }
  return listenAnywhere();
}

const QUIET_PORTS = { low: 20_000, high: 32_000 };

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

function listenAnywhere(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/**
 * How long an idle keep-alive connection stays open: longer than the 60 s idle timeout of common
 * load balancers and than clients' pools keep sockets, so that the server never closes a socket
 * just as the other side sends on it (Node's 5 s default: ECONNRESET under steady load, 502s
 * behind a load balancer). A graceful stop closes them sooner (drain.ts).
 */
export const KEEP_ALIVE_MS = 65_000;

/** Listens on host:port and answers the listener's URL; a failure names the setting (`portVariable`, HOST) at fault. */
export async function bind(server: Server, host: string, port: number, portVariable: string): Promise<string> {
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(error, host, port, portVariable)));
    server.listen(port, host, () => resolve());
  });
  return urlOf(server, host);
}

/**
 * Puts `server` on the listening socket of `holder`, which from then on takes no connection (those
 * it took stay its own), as {@link bind} would have bound it: no moment where the port is closed.
 */
export async function bindHeld(server: Server, holder: Server, host: string): Promise<string> {
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  await new Promise<void>((resolve) => server.listen(holder, () => resolve()));
  return urlOf(server, host);
}

function urlOf(server: Server, host: string): string {
  const address = server.address() as AddressInfo;
  return `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
}

/** A listen failure is a setting that does not work here: say which one. */
function listenError(error: NodeJS.ErrnoException, host: string, port: number, portVariable: string): Error {
  switch (error.code) {
    case 'EADDRINUSE':
      return new ConfigError(portVariable, `${host}:${port} is already in use`);
    case 'EACCES':
      return new ConfigError(portVariable, `not allowed to listen on port ${port}`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAFNOSUPPORT':
      return new ConfigError('HOST', `cannot listen on ${host} (${error.code})`);
    default:
      return error;
  }
}
