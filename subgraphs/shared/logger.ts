import { pino, type Logger } from 'pino';

export type { Logger };

/**
 * Structured logs go to stderr so that commands whose stdout is an answer (bootstrap) stay clean.
 * Secrets never reach a log line: the redact list covers every header and field that can carry one.
 */
export function createLogger(level: string = process.env.LOG_LEVEL ?? 'info', name = 'analytics'): Logger {
  return pino(
    {
      name,
      level,
      redact: {
        paths: [
          'authorization',
          'headers.authorization',
          '*.headers.authorization',
          'headers["x-actor"]',
          'api_key',
          '*.api_key',
          'value',
          'password',
        ],
        censor: '[redacted]',
      },
    },
    pino.destination({ fd: 2, sync: false }),
  );
}

let root: Logger | undefined;

/** The process-wide root logger; children carry the part (`subgraph`, `router`, `rest`). */
export function logger(): Logger {
  root ??= createLogger();
  return root;
}

/**
 * Writes a plain line (a failed start's last words) on stderr after every record the logger still
 * holds: its records are written asynchronously, so a line written beside them on stderr could come
 * first. Through the logger's own stream, the order is kept; the stream is flushed at exit.
 */
export function writeAfterLogs(log: Logger | undefined, line: string): void {
  const stream = (log as unknown as Record<symbol, { write(chunk: string): unknown } | undefined> | undefined)?.[pino.symbols.streamSym];
  if (stream) stream.write(`${line}\n`);
  else process.stderr.write(`${line}\n`);
}
