import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * How the proxy treats connections: passes them to the server; is not listening (connection
 * refused); resets each one; takes each one and never answers (a pool's connect times out); or
 * answers each one's start-up as PostgreSQL does when it will not take one, with a FATAL error of
 * this SQLSTATE.
 */
export type ProxyMode = 'pass' | 'refuse' | 'reset' | 'silent' | { sqlstate: string; message: string };

export interface PgProxy {
  /** DATABASE_URL through the proxy, to the database `target` names. */
  url: string;
  /** Changes how new connections are treated; connections already open are closed (reset in `reset`). */
  set(mode: ProxyMode): Promise<void>;
  close(): Promise<void>;
}

/**
 * A TCP proxy in front of a real PostgreSQL, owned by a test: the real network path between the
 * platform and its database, which the test can refuse, reset or silence (not a mock of our code).
 */
export async function startPgProxy(target: string): Promise<PgProxy> {
  const upstream = new URL(target);
  const sockets = new Set<Socket>();
  let mode: ProxyMode = 'pass';
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
  };
  const server: Server = createServer((client) => {
    track(client);
    if (mode === 'reset') return void client.resetAndDestroy();
    if (mode === 'silent') return;
    if (typeof mode === 'object') {
      const refusal = errorResponse(mode);
      return void client.once('data', () => client.end(refusal));
    }
    const onward = connect(Number(upstream.port || 5432), upstream.hostname);
    track(onward);
    client.pipe(onward).pipe(client);
    client.once('close', () => onward.destroy());
    onward.once('close', () => client.destroy());
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await listen(0);
  const port = (server.address() as AddressInfo).port;
  const url = new URL(target);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  const dropAll = (reset: boolean) => {
    for (const socket of sockets) {
      if (reset) socket.resetAndDestroy();
      else socket.destroy();
    }
  };
  return {
    url: url.toString(),
    async set(next) {
      const wasRefusing = mode === 'refuse';
      mode = next;
      dropAll(next === 'reset');
      if (next === 'refuse' && !wasRefusing) await new Promise<void>((resolve) => server.close(() => resolve()));
      if (next !== 'refuse' && wasRefusing) await listen(port);
    },
    async close() {
      dropAll(false);
      if (mode !== 'refuse') await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A protocol ErrorResponse, as PostgreSQL sends it in answer to a start-up packet it refuses. */
function errorResponse({ sqlstate, message }: { sqlstate: string; message: string }): Buffer {
  const fields = Buffer.from(`SFATAL\0VFATAL\0C${sqlstate}\0M${message}\0\0`, 'utf8');
  const header = Buffer.alloc(5);
  header.write('E', 0);
  header.writeInt32BE(fields.length + 4, 1);
  return Buffer.concat([header, fields]);
}
