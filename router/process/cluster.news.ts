/**
 * What the processes of `npm start` say of their start, kept apart from the cluster's primary
 * (which loads every subgraph) so that the entry point can hold the public port before it loads
 * anything heavy.
 */

/** What a worker tells its primary about its start. */
export type WorkerNews = { platform: 'ready'; url: string; ingestUrl?: string } | { platform: 'failed'; line: string };

/** Sends a worker's news to its primary. */
export function tellPrimary(news: WorkerNews, sent?: () => void): void {
  if (process.send) process.send(news, undefined, undefined, () => sent?.());
  else sent?.();
}

/** A worker's own one-line account of its failure, printed as it is. */
export class ReportedError extends Error {}

/** The lines a person and the tests read once the platform listens (printed by one process only). */
export function announce(listening: { url: string; ingestUrl?: string; metricsUrl?: string }): void {
  if (listening.metricsUrl) process.stdout.write(`Metrics (/metrics) listening on ${listening.metricsUrl}\n`);
  if (listening.ingestUrl) process.stdout.write(`Ingestion (/batch/) listening on ${listening.ingestUrl}\n`);
  process.stdout.write(`Analytics platform listening on ${listening.url}\n`);
}
