import { constants } from 'node:os';
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
 * Each stop is answered once the process can stop it all (see {@link onStopSignals}). A start that
 * has not got that far within `boundMs` of the signal (it waits on something that never answers),
 * or a second signal meanwhile (Ctrl-C again), ends the process there, as Node would have.
 */
export function holdStopSignals(boundMs = Infinity): HeldStopSignals {
  let stop: ((reason: string) => void) | undefined;
  let held: string | undefined;
  let bound: NodeJS.Timeout | undefined;
  const heard = (reason: string) => {
    if (stop) return stop(reason);
    if (held !== undefined) return stopUnready(reason);
    held = reason;
    if (Number.isFinite(boundMs)) bound = setTimeout(() => stopUnready(reason), boundMs).unref();
  };
  for (const signal of STOP_SIGNALS) process.on(signal, () => heard(signal));
  whenScriptParentExits(() => heard('npm exited'));
  return {
    handle(handler, fault) {
      clearTimeout(bound);
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

/** Ends a process that was asked to stop before it could stop gracefully: one line, and the signal's exit status. */
function stopUnready(reason: string): never {
  process.stderr.write(`${reason} during start-up: stopped before start-up finished\n`);
  const signal = constants.signals[reason as NodeJS.Signals] as number | undefined;
  process.exit(signal === undefined ? 1 : 128 + signal);
}
