import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { chmodSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { isClusterName, parseClickHouseUrl } from './clickhouse/clickhouse-url.js';
import { parseAllowList } from './outbound-allow-list.js';

/** Raised when a setting is present but unusable; start-up prints its one-line message and exits. */
export class ConfigError extends Error {
  constructor(readonly variable: string, reason: string) {
    super(`invalid setting ${variable}: ${reason}`);
  }
}

const url = (protocols: string[]) =>
  z.string().refine((value) => {
    try {
      return protocols.includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, `must be a URL starting with ${protocols.join(' or ')}`);

/**
 * A number as a setting is written: decimal digits, a sign and a fraction allowed; anything else is
 * refused. `Number()` (and so `z.coerce.number()`) read `0x1f` as 31 and `1e3` as 1000, and a blank
 * value as 0 (no rate limit, a random port) before blank values were taken as unset.
 */
const numeric = <T extends z.ZodTypeAny>(schema: T) =>
  z.preprocess((value) => (typeof value === 'string' ? (/^[-+]?\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : Number.NaN) : value), schema);

const port = numeric(z.number().int().min(0).max(65535));

/** A DNS name, an IPv4 address or an IPv6 one (bare or in brackets): what `listen` can be given. */
const HOST_NAME = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?|\[?[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(?:%\w+)?\]?)$/;

/** A DESTINATION_ALLOWED_HOSTS that holds an entry of no known form stops start-up, naming the entry. */
function allowListIssue(value: string, context: z.RefinementCtx): void {
  try {
    parseAllowList(value);
  } catch (error) {
    context.addIssue({ code: z.ZodIssueCode.custom, message: (error as Error).message });
  }
}

/** A CLICKHOUSE_URL of no known form stops start-up, saying what is wrong. */
function clickHouseUrlIssue(value: string, context: z.RefinementCtx): void {
  try {
    parseClickHouseUrl(value);
  } catch (error) {
    context.addIssue({ code: z.ZodIssueCode.custom, message: (error as Error).message });
  }
}

/** PostHog's capture takes batches of up to 20 MB. */
export const DEFAULT_MAX_INGEST_BODY_BYTES = 20 * 1_048_576;

const schema = z.object({
  PORT: port.default(8000),
  HOST: z.string().regex(HOST_NAME, 'must be a host name or an IP address').default('127.0.0.1'),
  INGEST_PORT: port.optional(),
  /** Prometheus text at /metrics on a listener of its own (same HOST); none when unset. */
  METRICS_PORT: port.optional(),
  DATABASE_URL: url(['postgres:', 'postgresql:']).optional(),
  /**
   * How long opening a PostgreSQL connection may take before the request waiting for it is
   * answered 503 (a server that takes connections and never answers would hold it for ever).
   */
  DATABASE_CONNECT_TIMEOUT_SECONDS: numeric(z.number().positive().max(600)).default(10),
  /**
   * Where events live: unset, PostgreSQL (DATABASE_URL's or the embedded one); set, ClickHouse,
   * `http(s)://user:password@host:8123/database` or `chdb:<directory>` (its engine in this process).
   */
  CLICKHOUSE_URL: z.string().superRefine(clickHouseUrlIssue).optional(),
  /** A ClickHouse cluster's name: the events' DDL runs `ON CLUSTER` it, on Replicated tables under Distributed ones. */
  CLICKHOUSE_CLUSTER: z.string().refine(isClusterName, 'must be a cluster name as ClickHouse writes it (letters, digits, underscores)').optional(),
  REDIS_URL: url(['redis:', 'rediss:']).optional(),
  REDIS_CHANNEL_PREFIX: z.string().min(1).default('analytics:'),
  DATA_DIR: z.string().min(1).default('./.data'),
  SECRET_KEY: z.string().min(32, 'must be at least 32 characters').optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  SMTP_URL: url(['smtp:', 'smtps:']).optional(),
  /** The sender of outgoing mail. */
  MAIL_FROM: z.string().min(3).regex(/@/, 'must hold an email address').default('Analytics Platform <no-reply@localhost>'),
  OPENAI_BASE_URL: url(['http:', 'https:']).optional(),
  ANTHROPIC_BASE_URL: url(['http:', 'https:']).optional(),
  GEMINI_BASE_URL: url(['http:', 'https:']).optional(),
  OPENROUTER_BASE_URL: url(['http:', 'https:']).optional(),
  OPENAI_API_KEY: z.string().min(1).optional(),
  ANTHROPIC_API_KEY: z.string().min(1).optional(),
  GEMINI_API_KEY: z.string().min(1).optional(),
  OPENROUTER_API_KEY: z.string().min(1).optional(),
  /** How long a language-model call may take (a summary); key checks and model lists take at most 10 s of it. */
  LLM_TIMEOUT_SECONDS: numeric(z.number().positive().max(600)).default(60),
  /** How long a saved endpoint's query may run before PostgreSQL stops it (400 `query_timeout`). */
  ENDPOINT_QUERY_TIMEOUT_SECONDS: numeric(z.number().positive().max(600)).default(30),
  /** How long the refresh of a materialized endpoint may run. */
  ENDPOINT_MATERIALIZATION_TIMEOUT_SECONDS: numeric(z.number().positive().max(3600)).default(600),
  /** Runs of one environment's endpoints at once in a process; more answer 429. */
  ENDPOINT_MAX_CONCURRENT_RUNS: numeric(z.number().int().positive().max(1000)).default(10),
  /**
   * Hosts a tenant's destination may reach although their addresses are not public: `host`,
   * `host:port` or a CIDR block, separated by commas. Empty: public addresses only.
   */
  DESTINATION_ALLOWED_HOSTS: z.string().superRefine(allowListIssue).default(''),
  /** Largest result a query may read (an endpoint run, a materialization, an export page), in bytes; more is a 400 `result_too_large`. */
  QUERY_MAX_RESULT_BYTES: numeric(z.number().int().positive()).default(20 * 1_048_576),
  /**
   * Memory one query may take on ClickHouse (`max_memory_usage`), in bytes; more is a 400. Far
   * above what a page of an answer needs, well below a server's: one tenant's query cannot take
   * the memory every other one runs in. Size it to the ClickHouse server, not to this process.
   */
  QUERY_MAX_MEMORY_BYTES: numeric(z.number().int().min(16 * 1_048_576)).default(4 * 1024 ** 3),
  /**
   * Queries running at once in a process (runs, refreshes, export pages), shared fairly between
   * environments: one holds at most about two thirds of them, and waiting ones are served in turn.
   */
  QUERY_SLOTS: numeric(z.number().int().min(1).max(64)).default(6),
  /**
   * Materialized endpoints an environment may have: enabling one more is a 400 naming
   * `is_materialized`; an endpoint created past it is kept, not materialized (its `materialization` says why).
   */
  ENDPOINT_MAX_MATERIALIZED: numeric(z.number().int().min(0).max(10_000)).default(20),
  /** Tries of a batch export run before it is marked failed (a destination that refuses outright fails at once). */
  BATCH_EXPORT_MAX_ATTEMPTS: numeric(z.number().int().min(1).max(100)).default(5),
  /** Wait before a failed run's second try; it doubles each time, up to an hour. */
  BATCH_EXPORT_RETRY_DELAY_SECONDS: numeric(z.number().positive().max(3600)).default(60),
  /** How long after an interval's end its run waits before reading it (writes begun inside it commit meanwhile). */
  BATCH_EXPORT_SETTLE_SECONDS: numeric(z.number().min(0).max(3600)).default(30),
  /** Batch export runs a process works at once. */
  BATCH_EXPORT_CONCURRENCY: numeric(z.number().int().min(1).max(64)).default(2),
  /** Requests a personal API key may make a minute and an hour (PostHog's 480 and 4,800); 0 is no limit. */
  RATE_LIMIT_PERSONAL_KEY_PER_MINUTE: numeric(z.number().int().min(0)).default(480),
  RATE_LIMIT_PERSONAL_KEY_PER_HOUR: numeric(z.number().int().min(0)).default(4800),
  /** `/batch/` requests a project API key may make a minute and an hour; 0 is no limit. */
  RATE_LIMIT_PROJECT_TOKEN_PER_MINUTE: numeric(z.number().int().min(0)).default(6000),
  RATE_LIMIT_PROJECT_TOKEN_PER_HOUR: numeric(z.number().int().min(0)).default(0),
  /**
   * Processes of `npm start` that serve requests, each with the router, the REST layer and every
   * subgraph, on the same ports (the machine's available parallelism by default); 1 is one process.
   */
  WORKERS: numeric(z.number().int().min(1).max(256)).default(availableParallelism()),
  /** How long a stopping platform lets requests in progress finish before it drops them. */
  SHUTDOWN_TIMEOUT_SECONDS: numeric(z.number().min(0).max(600)).default(10),
  /** Largest request body the public listener accepts, in bytes. */
  MAX_BODY_BYTES: numeric(z.number().int().positive()).default(1_048_576),
  /** Largest body of GraphQL requests and of the REST paths that take whole traces (text_repr, summarization). */
  MAX_LARGE_BODY_BYTES: numeric(z.number().int().positive().max(60 * 1_048_576)).default(16 * 1_048_576),
  /**
   * Largest `/batch/` body, compressed or once inflated (PostHog's capture takes 20 MB). At most
   * 30 MiB: the JSON reaches the ingestion subgraph as a string inside a GraphQL request, where
   * escaping can double it, and a subgraph reads 64 MiB at most.
   */
  MAX_INGEST_BODY_BYTES: numeric(z.number().int().positive().max(30 * 1_048_576)).default(DEFAULT_MAX_INGEST_BODY_BYTES),
  /**
   * Set, the router does not start subgraphs itself but routes to running ones: `name=url` pairs
   * separated by commas, and supergraph.yaml's routing_url for any subgraph not named (`*` alone
   * means all of them).
   */
  SUBGRAPH_URLS: z
    .string()
    .regex(/^(\*|[a-z-]+=https?:\/\/[^,\s]+(,[a-z-]+=https?:\/\/[^,\s]+)*)$/, 'must be * or name=url pairs separated by commas')
    .optional(),
  /** Where a REST layer run alone sends its GraphQL operations. */
  ROUTER_URL: url(['http:', 'https:']).default('http://127.0.0.1:8000/graphql'),
  /** Port of a subgraph served alone (`node dist/router/process/cli/subgraph.cli.js <name>`); 0 for any free one. */
  SUBGRAPH_PORT: port.optional(),
});

type Env = z.infer<typeof schema>;

export interface Config extends Omit<Env, 'SECRET_KEY' | 'DATA_DIR'> {
  DATA_DIR: string;
  SECRET_KEY: string;
  /** True when SECRET_KEY came from `$DATA_DIR/secret-key` rather than the environment. */
  secretKeyGenerated: boolean;
}

/** Reads and validates the environment. Throws {@link ConfigError} naming the first bad variable. */
export function parseConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty or blank variable is unset (`PORT= npm start`, or a compose file's `PORT: " "`).
  const blankless = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value.trim() !== ''));
  const parsed = schema.safeParse(blankless);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(String(issue.path[0]), issue.message);
  }
  for (const name of ['INGEST_PORT', 'METRICS_PORT'] as const) {
    const own = parsed.data[name];
    if (own && own === parsed.data.PORT) throw new ConfigError(name, `must differ from PORT (${own}), which serves every path already`);
  }
  const workers = clickHouseWorkers(parsed.data, blankless.WORKERS !== undefined);
  const dataDir = resolve(parsed.data.DATA_DIR);
  const secret = parsed.data.SECRET_KEY;
  return {
    ...parsed.data,
    WORKERS: workers,
    DATA_DIR: dataDir,
    SECRET_KEY: secret ?? loadOrCreateSecretKey(dataDir),
    secretKeyGenerated: secret === undefined,
  };
}

/**
 * The workers the ClickHouse settings allow. One process only can hold a chDB directory: with
 * `chdb:` WORKERS is 1 unless set, and set above 1 it stops start-up. A cluster needs a server.
 */
function clickHouseWorkers(env: Env, workersSet: boolean): number {
  const target = env.CLICKHOUSE_URL ? parseClickHouseUrl(env.CLICKHOUSE_URL) : undefined;
  if (env.CLICKHOUSE_CLUSTER && target?.kind !== 'http') {
    throw new ConfigError('CLICKHOUSE_CLUSTER', 'needs CLICKHOUSE_URL to name a ClickHouse server (http(s)://…), the cluster\'s DDL runs there');
  }
  if (target?.kind !== 'chdb') return env.WORKERS;
  if (workersSet && env.WORKERS > 1) {
    throw new ConfigError('WORKERS', `must be 1 with CLICKHOUSE_URL=chdb:… (one process can hold a chDB directory); use a ClickHouse server for ${env.WORKERS} workers`);
  }
  return 1;
}

function loadOrCreateSecretKey(dataDir: string): string {
  const file = resolve(dataDir, 'secret-key');
  if (existsSync(file)) {
    const stored = readFileSync(file, 'utf8').trim();
    if (stored.length < 32) throw new ConfigError('SECRET_KEY', `${file} holds fewer than 32 characters`);
    return stored;
  }
  try {
    makeDirectory(dataDir);
  } catch (error) {
    // A file where the directory should be, or a parent the process may not write.
    throw new ConfigError('DATA_DIR', `cannot be made (${(error as Error).message})`);
  }
  const generated = randomBytes(32).toString('base64url');
  try {
    writeFileSync(file, `${generated}\n`, { mode: 0o600 });
    chmodSync(file, 0o600);
  } catch (error) {
    throw new ConfigError('DATA_DIR', `cannot be written (${(error as Error).message})`);
  }
  return generated;
}

/**
 * `mkdir -p`, one level at a time from the nearest directory that exists. Node's recursive mkdir
 * retries for ever where a level can never be made (under /proc it spins at full CPU).
 */
function makeDirectory(path: string): void {
  const missing: string[] = [];
  for (let level = path; !existsSync(level); level = dirname(level)) missing.unshift(level);
  for (const level of missing) mkdirSync(level);
  // Something else where the directory should be: mkdir says so (EEXIST) in the system's words.
  if (!statSync(path).isDirectory()) mkdirSync(path);
}

let cached: Config | undefined;

/** The process configuration, read once. */
export function config(): Config {
  cached ??= parseConfig();
  return cached;
}

/** Replaces the process configuration (tests and embedded start-up, which learns its database URL late). */
export function setConfig(next: Config): Config {
  cached = next;
  return next;
}
