import { createServer, type Server } from 'node:http';
import type { Logger } from './logger.js';
import { metrics } from './metrics.js';
import { bind } from './net.js';

/** Where the text comes from: this process's registry unless given. */
export interface MetricsSource {
  text(): Promise<string>;
  contentType: string;
}

/**
 * Prometheus text at `/metrics`, on a listener of its own (METRICS_PORT): operation names, volumes
 * and the machine's load are for operators, not for the public listener's callers. The platform
 * process serves it (a cluster's primary, the sum of its workers'), and so does each subgraph run alone.
 */
export async function listenMetrics(options: { host: string; port: number; log: Logger; source?: MetricsSource }): Promise<{ url: string; server: Server; close(): Promise<void> }> {
  const source = options.source ?? { text: () => metrics.metrics(), contentType: metrics.contentType };
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://metrics').pathname;
    if (path !== '/metrics') return void response.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
    if (request.method !== 'GET' && request.method !== 'HEAD') return void response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('GET only\n');
    source.text().then(
      (text) => response.writeHead(200, { 'content-type': source.contentType }).end(request.method === 'HEAD' ? undefined : text),
      (error: unknown) => {
        options.log.error({ err: error }, 'metrics could not be collected');
        response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics could not be collected\n');
      },
    );
  });
  const url = await bind(server, options.host, options.port, 'METRICS_PORT');
  return { url, server, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
