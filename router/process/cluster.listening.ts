import cluster from 'node:cluster';
import { callPrimary } from '../../subgraphs/shared/cluster/cluster.ipc.js';

/**
 * A cluster's workers share each public port through the primary, which takes the connections
 * and hands them on, and closes the port once no worker listens on it. A connection it took just
 * before that, for a worker closing meanwhile, is closed unanswered; so during a stop a worker
 * tells no client to connect again (`Connection: close`) until no worker listens any more, and
 * clients that connect again find the port closed.
 */
export const LISTENING_SERVICE = 'listening-ended';

/** In a worker: resolves once no worker of the cluster listens on `port` (the setting naming it). */
export function listeningEndedEverywhere(port: string): () => Promise<void> {
  return () => callPrimary<void>(LISTENING_SERVICE, port, cluster.worker!.id);
}

/** The primary's end: which workers listen, and which have stopped listening on which port. */
export class ListeningEnds {
  private readonly listening = new Set<number>();
  private readonly ended = new Map<string, { workers: Set<number>; waiting: (() => void)[] }>();

  /** A worker is ready: it listens on every public port. */
  listens(worker: number): void {
    this.listening.add(worker);
  }

  /** A worker ended: none of its listeners is waited for. */
  gone(worker: number): void {
    this.listening.delete(worker);
    this.settle();
  }

  /** A worker stopped listening on `port`: answers once every worker has. */
  end(port: string, worker: number): Promise<void> {
    const entry = this.ended.get(port) ?? { workers: new Set<number>(), waiting: [] };
    this.ended.set(port, entry);
    entry.workers.add(worker);
    const answered = new Promise<void>((resolve) => entry.waiting.push(resolve));
    this.settle();
    return answered;
  }

  private settle(): void {
    for (const entry of this.ended.values()) {
      if (![...this.listening].every((worker) => entry.workers.has(worker))) continue;
      for (const resolve of entry.waiting.splice(0)) resolve();
    }
  }
}
