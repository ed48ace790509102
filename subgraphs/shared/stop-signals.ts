import { whenScriptParentExits } from './parent-process.js';

/** The signals that stop a serving process gracefully. */
export const STOP_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/**
 * What stops a serving process: SIGTERM, SIGINT, SIGHUP (its terminal closed) or, under a package
 * manager, the end of the script's parent, each calling `stop` (which must do its work once:
 * Ctrl-C or a closed terminal signals the whole process group, so a signal and npm's end both
 * come); and an uncaught exception, `fault`. Node's own answer to SIGHUP is to end at once, even
 * under `nohup`, without answering the requests in progress.
 */
export function onStopSignals(stop: (reason: string) => void, fault: (error: Error) => void): void {
  for (const signal of STOP_SIGNALS) process.on(signal, () => stop(signal));
  whenScriptParentExits(() => stop('npm exited'));
  process.on('uncaughtException', fault);
}
