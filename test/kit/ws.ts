import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

/** A graphql-ws client as a browser or SDK would open it, authenticated by connection params or header. */
export function wsClient(url: string, key?: string, via: 'params' | 'header' = 'params'): Client {
  const authorization = key ? `Bearer ${key}` : undefined;
  class AuthorizedWebSocket extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, via === 'header' && authorization ? { headers: { authorization } } : {});
    }
  }
  return createClient({
    url,
    webSocketImpl: AuthorizedWebSocket,
    connectionParams: via === 'params' && authorization ? { Authorization: authorization } : {},
    retryAttempts: 0,
    lazy: true,
  });
}

/** Subscribes and collects results; `next(n)` waits for the n-th one (or fails after `ms`). */
export function collect<T = any>(client: Client, query: string, variables: Record<string, unknown>) {
  const results: { data?: T; errors?: readonly { message: string; extensions?: Record<string, unknown> }[] }[] = [];
  let failure: unknown;
  let completed = false;
  const waiters: (() => void)[] = [];
  const wake = () => waiters.splice(0).forEach((resolve) => resolve());
  const dispose = client.subscribe<T>(
    { query, variables },
    {
      next: (value) => {
        results.push(value as never);
        wake();
      },
      error: (error) => {
        failure = error;
        wake();
      },
      complete: () => {
        completed = true;
        wake();
      },
    },
  );
  const until = async (done: () => boolean, ms = 10_000) => {
    const deadline = Date.now() + ms;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out; got ${JSON.stringify(results)} ${String(failure)}`);
      await new Promise<void>((resolve) => {
        waiters.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  };
  return {
    results,
    get failure() {
      return failure;
    },
    next: async (count: number, ms?: number) => {
      await until(() => results.length >= count || failure !== undefined || completed, ms);
      return results.slice(0, count);
    },
    ended: () => until(() => failure !== undefined || completed),
    dispose,
  };
}
