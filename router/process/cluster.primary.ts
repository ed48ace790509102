import cluster, { type Worker } from 'node:cluster';
import { forgetEmbeddedUrl, prepareDatabase } from './platform.js';
import { callPrimary, ClusterHub } from '../../subgraphs/shared/cluster/cluster.ipc.js';
import { pubSubServices } from '../../subgraphs/shared/cluster/cluster.pubsub.js';
import { SequenceFloors } from '../../subgraphs/shared/pubsub/sequence-floors.js';
import type { Config } from '../../subgraphs/shared/config.js';
import type { Database } from '../../subgraphs/shared/db/database.js';
import type { Logger } from '../../subgraphs/shared/logger.js';
import { listenMetrics } from '../../subgraphs/shared/metrics.listener.js';
import { clusterMetrics } from '../../subgraphs/shared/metrics.js';
import { onStopSignals } from '../../subgraphs/shared/stop-signals.js';
import { bind } from '../../subgraphs/shared/net.js';
import { rateLimitServices } from '../../subgraphs/shared/rate-limit.js';
import { announce, ReportedError, type WorkerNews } from './cluster.news.js';
import { LISTENING_SERVICE, ListeningEnds } from './cluster.listening.js';
import type { PortHold } from '../listener.ports.js';
import type { StartingListener } from './starting.listener.js';
import { withYoungGeneration } from './young-generation.js';

/**
 * A worker that ends unasked is started again after this, doubled for each end in a row (up to the
 * maximum), so a worker that fails at every start does not spin; a quiet minute starts over.
 */
const RESTART_DELAY_MS = 1000;
const MAX_RESTART_DELAY_MS = 30_000;
const QUIET_MS = 60_000;
/** Beyond the workers' own grace: their stop of the subgraphs and pools. */
const STOP_MARGIN_MS = 5000;

/**
 * The database a worker's primary prepared, asked for over IPC once the worker has loaded its code
 * (the primary prepares it meanwhile); it holds the embedded server's password, so it is not put in
 * the environment. An embedded server stays the primary's to stop.
 */
export async function preparedDatabase(): Promise<{ database: Database; embedded: boolean }> {
  const { url, embedded } = await callPrimary<PreparedDatabase>(DATABASE_SERVICE);
  return { database: { url }, embedded };
}

interface PreparedDatabase {
  url: string;
  embedded: boolean;
}

const DATABASE_SERVICE = 'database';
const PORT_SERVICE = 'public-port';

/** A worker's hold on the public port: its primary's, given up when the first worker is ready to listen, and then bound. */
export function primaryPortHold(host: string): PortHold {
  return { takeOver: async (server) => bind(server, host, await callPrimary<number>(PORT_SERVICE), 'PORT') };
}

/**
 * `npm start` with WORKERS above 1: this process checks the settings and forks WORKERS processes;
 * while they load their code it opens the database (starting the embedded server once), migrates
 * and bootstraps, then hands it to them. Each runs the router, the REST layer and every subgraph
 * on the shared public (and ingest) port, Node's cluster handing connections to them in turn.
 * Without REDIS_URL it keeps what the workers must share (pub/sub, replay logs, rate-limit counts)
 * and answers them over IPC; METRICS_PORT serves the sum of the workers' metrics. A worker that
 * dies is replaced. On SIGTERM, SIGINT or SIGHUP the workers stop gracefully, then the embedded server.
 * The public port, held since the start, is given up when the first worker is ready to listen on it.
 */
export async function runPrimary(settings: Config, log: Logger, port: StartingListener): Promise<void> {
  const started = Date.now();
  // The workers are forked at once and load their code (seconds of CPU) while this process starts
  // the database; each asks for it when it gets that far.
  const preparing = prepareDatabase(settings, log);
  preparing.catch(() => undefined); // awaited below: its failure is the start's one line
  const hub = new ClusterHub();
  hub.serve({ [DATABASE_SERVICE]: async (): Promise<PreparedDatabase> => toWorkers(await preparing), [PORT_SERVICE]: port.release });
  // The workers' sequences go on above those of the platform's previous run (see TopicSequences).
  const floors = preparing.then((database) => new SequenceFloors(database.url));
  floors.catch(() => undefined);
  hub.serve(pubSubServices(hub, floors));
  hub.serve(rateLimitServices());
  const listeningEnds = new ListeningEnds();
  hub.serve({ [LISTENING_SERVICE]: (listener: string, worker: number) => listeningEnds.end(listener, worker) });
  let stopping = false;
  let metricsListener: Awaited<ReturnType<typeof listenMetrics>> | undefined;
  cluster.setupPrimary({ execArgv: withYoungGeneration(process.execArgv, process.env.NODE_OPTIONS) });
  const fork = (): Worker => {
    const worker = cluster.fork();
    hub.attach(worker);
    // Another sender's message (prom-client's metrics requests) to a worker that has just ended
    // fails with EPIPE, raised as this event: no fault of the primary's, which an uncaught one would end.
    worker.on('error', (error: Error) => log.warn({ err: error, worker_pid: worker.process.pid }, 'a message to a worker failed'));
    worker.on('message', (news: WorkerNews) => news?.platform === 'ready' && listeningEnds.listens(worker.id));
    worker.once('exit', () => listeningEnds.gone(worker.id));
    return worker;
  };
  const stop = async (boundMs: number) => {
    stopping = true;
    await Promise.allSettled([stopWorkers(boundMs), metricsListener?.close()]);
    await floors.then((open) => open.close()).catch(() => undefined);
    const database = await preparing.catch(() => undefined);
    if (database?.embedded) forgetEmbeddedUrl(settings);
    await database?.embedded?.stop();
  };
  // From the first fork on, a signal stops the workers and the database, even while they start.
  const shutdown = async (signal: string) => {
    if (stopping) return;
    log.info({ signal, workers: Object.keys(cluster.workers ?? {}).length }, 'shutting down: workers finish their requests');
    await stop(settings.SHUTDOWN_TIMEOUT_SECONDS * 1000 + STOP_MARGIN_MS);
    log.info({ signal }, 'stopped');
    process.exit(0);
  };
  // A fault of the primary's own still stops the workers and the embedded server before it exits.
  onStopSignals(
    (signal) => void shutdown(signal),
    (error) => {
      log.fatal({ err: error }, 'uncaught exception');
      void stop(STOP_MARGIN_MS).finally(() => process.exit(1));
    },
  );

  let first: Extract<WorkerNews, { platform: 'ready' }>;
  let database: Database;
  try {
    // The requests the port held meanwhile go to the first worker that listens (the cluster hands them on).
    const ready = Promise.all(
      Array.from({ length: settings.WORKERS }, async () => {
        const news = await whenReady(fork());
        port.forward();
        return news;
      }),
    );
    ready.catch(() => undefined); // a database that failed is the failure to tell, not the workers that waited for it
    database = await preparing;
    [first] = await ready;
    metricsListener = settings.METRICS_PORT === undefined ? undefined : await listenMetrics({ host: settings.HOST, port: settings.METRICS_PORT, log, source: clusterMetrics() });
  } catch (error) {
    if (stopping) return; // a signal came during the start: its shutdown ends the process
    await stop(STOP_MARGIN_MS);
    throw error;
  }
  let endsInARow = 0;
  let lastEnd = 0;
  cluster.on('exit', (worker, code, signal) => {
    if (stopping) return;
    endsInARow = Date.now() - lastEnd > QUIET_MS ? 0 : endsInARow + 1;
    lastEnd = Date.now();
    const delayMs = Math.min(RESTART_DELAY_MS * 2 ** endsInARow, MAX_RESTART_DELAY_MS);
    log.error({ worker_pid: worker.process.pid, code, signal, restart_in_ms: delayMs }, 'worker ended; starting another');
    setTimeout(() => stopping || void whenReady(fork()).catch((error: Error) => log.error({ err: error }, 'replacement worker did not start')), delayMs);
  });
  log.info({ url: first!.url, ingest_url: first!.ingestUrl ?? first!.url, workers: settings.WORKERS, ms: Date.now() - started, embedded_database: Boolean(database!.embedded) }, 'platform listening');
  announce({ url: first!.url, ingestUrl: first!.ingestUrl, metricsUrl: metricsListener?.url });
}

function toWorkers(database: Database): PreparedDatabase {
  return { url: database.url, embedded: Boolean(database.embedded) };
}

/** Resolves with a worker's first news once it listens; rejects with its one line if it fails or ends first. */
function whenReady(worker: Worker): Promise<Extract<WorkerNews, { platform: 'ready' }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (news: WorkerNews) => {
      if (news?.platform === 'ready') settle(() => resolve(news));
      if (news?.platform === 'failed') settle(() => reject(new ReportedError(news.line)));
    };
    const onExit = (code: number | null, signal: string | null) => settle(() => reject(new Error(`a worker ended while starting (${signal ?? `exit code ${code}`})`)));
    const settle = (then: () => void) => {
      worker.off('message', onMessage);
      worker.off('exit', onExit);
      then();
    };
    worker.on('message', onMessage);
    worker.on('exit', onExit);
  });
}

/** SIGTERM to every worker (each stops gracefully); SIGKILL to any still running after `boundMs`. */
async function stopWorkers(boundMs: number): Promise<void> {
  const workers = Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => Boolean(worker));
  const exits = workers.map((worker) => new Promise<void>((resolve) => (worker.isDead() ? resolve() : worker.once('exit', () => resolve()))));
  for (const worker of workers) worker.process.kill('SIGTERM');
  const timer = setTimeout(() => workers.forEach((worker) => worker.isDead() || worker.process.kill('SIGKILL')), boundMs);
  await Promise.all(exits);
  clearTimeout(timer);
}
