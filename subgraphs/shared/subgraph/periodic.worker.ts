import type { Logger } from '../logger.js';
import type { Worker } from './define.js';

export interface PeriodicWork {
  /**
   * One pass over what is due; `stopped` says when to leave off between items. `draining` is set
   * for the pass `drain` asked for: it should wait for work another process holds, not skip it.
   */
  run(stopped: () => boolean, draining: boolean): Promise<void>;
  everyMs: number;
  log: Logger;
  /** How a failed pass is logged. */
  failure: string;
  /** Announcements that work was queued (pub/sub): each starts a pass, at once or after `gatherMs`. */
  wakeUps?: AsyncIterableIterator<unknown>;
  /**
   * How long a wake-up waits for others before its pass starts: one pass then serves all the work
   * announced meanwhile (work that comes in a stream costs a pass per announcement otherwise).
   */
  gatherMs?: number;
  /** Runs last on stop (closing connections the work used). */
  onStop?: () => void;
}

/**
 * Background work on rows of the database: a pass at start, one on each wake-up and one every
 * `everyMs`. Passes never overlap: one asked for while another runs follows it. `drain` waits for
 * a pass that may have begun before the caller's commit, then makes one more, a draining one.
 */
export function startPeriodicWorker(work: PeriodicWork): Worker {
  let running: Promise<void> | undefined;
  let again = false;
  let drainWanted = false;
  let stopped = false;
  const isStopped = () => stopped;

  const pass = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        const draining = drainWanted;
        drainWanted = false;
        await work.run(isStopped, draining);
      } while (again && !stopped);
    })()
      .catch((error: unknown) => work.log.error({ err: error }, work.failure))
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  let gathering: NodeJS.Timeout | undefined;
  const wakeUp = () => {
    if (!work.gatherMs) return void pass();
    gathering ??= setTimeout(() => {
      gathering = undefined;
      void pass();
    }, work.gatherMs);
  };
  if (work.wakeUps) {
    const wakeUps = work.wakeUps;
    void (async () => {
      for await (const _ of wakeUps) wakeUp();
    })()
      // Wake-ups that ended with events lost: a pass now finds what they announced; later ones wait for the timer.
      .catch(() => !stopped && wakeUp());
  }
  const timer = setInterval(() => void pass(), work.everyMs);
  timer.unref();
  void pass();

  return {
    drain: async () => {
      await running;
      drainWanted = true;
      await pass();
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      clearTimeout(gathering);
      await work.wakeUps?.return?.();
      await running;
      work.onStop?.();
    },
  };
}
