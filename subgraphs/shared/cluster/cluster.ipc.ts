import cluster, { type Worker as ClusterWorker } from 'node:cluster';

/**
 * Calls and broadcasts between a cluster's primary and its workers over Node's IPC channel (which
 * keeps each direction's messages in order). Every message of ours carries `platform`, so that
 * other users of the channel (prom-client's metrics requests) pass by.
 */
type Message =
  | { platform: 'call'; id: number; method: string; args: unknown[] }
  | { platform: 'reply'; id: number; result?: unknown; error?: string }
  | { platform: 'broadcast'; channel: string; data: unknown };

/** What the primary answers workers' calls with: a function per method name. */
export type PrimaryServices = Record<string, (...args: never[]) => unknown>;

function isMessage(value: unknown): value is Message {
  return typeof value === 'object' && value !== null && 'platform' in value;
}

/** The primary's end: answers each worker's calls, and sends broadcasts to every worker. */
export class ClusterHub {
  private services: PrimaryServices = {};

  /** Adds methods the workers may call. */
  serve(services: PrimaryServices): void {
    this.services = { ...this.services, ...services };
  }

  attach(worker: ClusterWorker): void {
    worker.on('message', (message: unknown) => {
      if (isMessage(message) && message.platform === 'call') void this.answer(worker, message.id, message.method, message.args);
    });
  }

  broadcast(channel: string, data: unknown): void {
    const message: Message = { platform: 'broadcast', channel, data };
    for (const worker of Object.values(cluster.workers ?? {})) if (worker) send(worker, message);
  }

  private async answer(worker: ClusterWorker, id: number, method: string, args: unknown[]): Promise<void> {
    let reply: Message;
    try {
      const service = this.services[method] as ((...args: unknown[]) => unknown) | undefined;
      if (!service) throw new Error(`the cluster primary has no method ${method}`);
      reply = { platform: 'reply', id, result: await service(...args) };
    } catch (error) {
      reply = { platform: 'reply', id, error: error instanceof Error ? error.message : String(error) };
    }
    send(worker, reply);
  }
}

/**
 * Sends to a worker that may be gone: one that has exited still looks connected until its
 * channel's end is read, and a write to it fails (EPIPE). Without a callback Node raises that as
 * an 'error' event on the worker, an uncaught exception that ended the primary (exit code 1) in
 * the middle of a graceful stop. A gone worker's calls died with it; it needs no broadcast.
 */
function send(worker: ClusterWorker, message: Message): void {
  if (worker.isConnected()) worker.send(message, undefined, undefined, () => undefined);
}

const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
const channels = new Map<string, Set<(data: unknown) => void>>();
let lastId = 0;
let listening = false;

/** A worker's end, set up on first use: replies settle their calls, broadcasts reach their channel's listeners. */
function listen(): void {
  if (listening) return;
  listening = true;
  process.on('message', (message: unknown) => {
    if (!isMessage(message)) return;
    if (message.platform === 'broadcast') for (const listener of channels.get(message.channel) ?? []) listener(message.data);
    if (message.platform !== 'reply') return;
    const call = pending.get(message.id);
    pending.delete(message.id);
    if (message.error === undefined) call?.resolve(message.result);
    else call?.reject(new Error(message.error));
  });
  process.once('disconnect', () => {
    for (const call of pending.values()) call.reject(new Error('the cluster primary is gone'));
    pending.clear();
  });
}

/** Calls a method of the primary from a worker. */
export function callPrimary<T>(method: string, ...args: unknown[]): Promise<T> {
  listen();
  const send = process.send?.bind(process);
  if (!send || !process.connected) return Promise.reject(new Error('the cluster primary is gone'));
  return new Promise<T>((resolve, reject) => {
    const id = ++lastId;
    pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
    const message: Message = { platform: 'call', id, method, args };
    send(message, undefined, undefined, (error: Error | null) => {
      if (!error) return;
      pending.delete(id);
      reject(error);
    });
  });
}

/** Listens, in a worker, to the primary's broadcasts on a channel; answers the way to stop. */
export function onBroadcast(channel: string, listener: (data: unknown) => void): () => void {
  listen();
  const listeners = channels.get(channel) ?? new Set();
  channels.set(channel, listeners);
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Whether the primary can be reached from this worker. */
export function primaryConnected(): boolean {
  return Boolean(process.connected);
}
