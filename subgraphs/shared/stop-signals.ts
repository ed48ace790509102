import { whenScriptParentExits } from './parent-process.js';

/** The signals that stop a serving process gracefully. */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/** Stop signals listened to before the process can stop gracefully; see {@link holdStopSignals}. */
export interface HeldStopSignals {
  /** From now on `stop` answers them; one that came before is answered at once. */
  handle(stop: (reason: string) => void, fault: (error: Error) => void): void;
}

/**
 * Listens for the stop signals before a process is ready to stop gracefully, and keeps the first
 * that comes: a cluster's primary may stop its workers while they start, and a worker that ignored
 * the signal (or died of it halfway) would be killed at the bound, or leave what it had started.
 * Each stop is answered once the process can stop it all (see {@link onStopSignals}).
 */
export function holdStopSignals(): HeldStopSignals {
  let stop: ((reason: string) => void) | undefined;
  let held: string | undefined;
  const heard = (reason: string) => (stop ? stop(reason) : (held ??= reason));
  for (const signal of STOP_SIGNALS) process.on(signal, () => heard(signal));
  whenScriptParentExits(() => heard('npm exited'));
  return {
    handle(handler, fault) {
      stop = handler;
      process.on('uncaughtException', fault);
      if (held !== undefined) handler(held);
    },
  };
}

/**
 * What stops a serving process: SIGTERM, SIGINT, SIGHUP (its terminal closed) or, under a package
 * manager, the end of the script's parent, each calling `stop` (which must do its work once:
 * Ctrl-C or a closed terminal signals the whole process group, so a signal and npm's end both
 * come); and an uncaught exception, `fault`. Node's own answer to SIGHUP is to end at once, even
 * under `nohup`, without answering the requests in progress.
 */
export function onStopSignals(stop: (reason: string) => void, fault: (error: Error) => void): void {
  holdStopSignals().handle(stop, fault);
}
