/** What of a Redis client connecting takes: node-redis's clients, whatever their modules and scripts. */
interface Connecting {
  connect(): Promise<unknown>;
  readonly isOpen: boolean;
  destroy(): void;
}

/** How long a new connection may wait for Redis to answer, as PostgreSQL's does (db/database.ts). */
export const REDIS_ANSWER_TIMEOUT_MS = 10_000;

/**
 * Connects the clients, or fails with "no answer within 10 s" and closes them. `connectTimeout`
 * bounds opening the socket only: a server that takes the connection and never answers (a wrong
 * port, a proxy with nothing behind it) left `connect()` waiting for its handshake, and start-up
 * with it, for ever.
 */
export async function connectAnswering(clients: Connecting[], timeoutMs = REDIS_ANSWER_TIMEOUT_MS): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const silence = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    await Promise.race([Promise.all(clients.map((client) => client.connect())), silence]);
  } catch (error) {
    for (const client of clients) if (client.isOpen) client.destroy();
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
