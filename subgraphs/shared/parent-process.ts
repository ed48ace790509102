/** How often the parent is looked at: a getppid() call, so the stop begins within this of npm's end. */
const WATCH_MS = 200;

/**
 * Calls `gone` once, when the process that started this one has exited, if a package manager's
 * script started it (npm, yarn and pnpm set `npm_lifecycle_event`). `npm start` runs its script
 * through `sh -c`, and passes SIGTERM and SIGINT on to that shell alone: the shell dies of it
 * without passing it on, npm exits as soon as the shell has, and the platform, never signalled,
 * would keep running (with its embedded PostgreSQL) as an orphan. Its parent's end is all it hears.
 * Started any other way (a process manager, a container's command, `node` itself), a parent that
 * exits means nothing: `nohup` and daemonising shells leave their child running on purpose.
 */
export function whenScriptParentExits(gone: () => void): void {
  if (!process.env.npm_lifecycle_event) return;
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    gone();
  }, WATCH_MS);
  timer.unref();
}
