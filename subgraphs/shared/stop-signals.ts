import { whenScriptParentExits } from './parent-process.js';

/**
 * What stops a serving process: SIGTERM, SIGINT or, under a package manager, the end of the
 * script's parent, each calling `stop` (which must do its work once: Ctrl-C signals the whole
 * process group, so a SIGINT and npm's end both come); and an uncaught exception, `fault`.
 */
export function onStopSignals(stop: (reason: string) => void, fault: (error: Error) => void): void {
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  whenScriptParentExits(() => stop('npm exited'));
  process.on('uncaughtException', fault);
}
