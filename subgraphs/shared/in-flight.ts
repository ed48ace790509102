/**
 * Work in progress that a stop lets finish. A client that goes away ends its connection, and a
 * server's close no longer waits for it, while the work its request began still runs: the router's
 * plan goes on to the next subgraph, a resolver to its next query. Stopping without waiting for it
 * closed subgraphs and database pools under it (`Cannot execute GraphQL operations after the
 * server has stopped`, `DriverException: aborted`, logged as errors after a load).
 */
export class InFlight {
  private readonly running = new Set<Promise<unknown>>();

  track<T>(work: Promise<T>): Promise<T> {
    this.running.add(work);
    const forget = () => this.running.delete(work);
    work.then(forget, forget);
    return work;
  }

  /** Resolves once all work tracked so far has settled, or after `boundMs`. */
  async settled(boundMs: number): Promise<void> {
    if (this.running.size === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.running]), new Promise((resolve) => (timer = setTimeout(resolve, boundMs)))]);
    clearTimeout(timer);
  }
}
