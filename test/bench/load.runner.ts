import autocannon from 'autocannon';

export const CONNECTIONS = 50;
const WARMUP_SECONDS = 3;
/** About ten seconds per target; BENCH_SECONDS shortens a trial run of the benchmark itself. */
export const MEASURE_SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/** How many failing bodies a run keeps to quote: enough to see the pattern, not to flood. */
const KEPT_FAILURES = 3;

/** One HTTP request that a load run repeats. */
export interface LoadTarget {
  key: string;
  label: string;
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** Whether an answer's body is right; by default, a GraphQL answer with `results` and no `errors`. */
  verifyBody?: (body: string) => boolean;
  /**
   * The path (with query) and headers of the n-th request of a run on `connections` connections,
   * when requests must differ: the router runs identical queries in flight to a subgraph once, so
   * identical concurrent requests would measure that sharing.
   */
  variant?: (index: number, connections: number) => { path?: string; headers?: Record<string, string>; body?: string };
}

/** How hard a run drives its target. */
export interface LoadShape {
  connections: number;
  seconds: number;
  /**
   * This many requests instead of `seconds`, after a warm-up of WARMUP_SECONDS/`seconds` as many
   * (at least one per connection). A timed run abandons its requests in flight, which the server
   * goes on working through during the next run: with slow answers, that skews the next figures.
   */
  requests?: number;
  /** autocannon's per-request timeout (default 10 s); a timeout counts as an error. */
  timeoutSeconds?: number;
}

/** Latency percentiles in milliseconds, nearest rank over every 2xx answer's own timing. */
export interface Percentiles {
  p50: number;
  p90: number;
  p95: number;
  p99: number;
}

export interface LoadFigures {
  requestsPerSecond: number;
  /** autocannon's p99, from its histogram (whole milliseconds). */
  p99Ms: number;
  /** From the timing of each 2xx answer (fractional ms): autocannon's histogram has no p95. */
  latency: Percentiles;
  requests: number;
  /** How long the run took. */
  seconds: number;
  non2xx: number;
  /** Connection errors (timeouts included). */
  errors: number;
  timeouts: number;
  /** Answers, of any status, whose body fails the target's check. */
  badBodies: number;
  /** A few bodies that failed the check, to quote when the run fails. */
  samples: string[];
  /** Each 2xx answer's timing (ms), so that runs can be put together. */
  timings: number[];
}

/** A short warm-up (JIT, connection pools, query-plan caches), then the measured run. */
export async function measure(
  target: LoadTarget,
  shape: LoadShape = { connections: CONNECTIONS, seconds: MEASURE_SECONDS },
): Promise<{ warmup: LoadFigures; run: LoadFigures }> {
  const warmupRequests = shape.requests && Math.max(shape.connections, Math.ceil((shape.requests * WARMUP_SECONDS) / shape.seconds));
  const warmup = await load(target, warmupRequests ? { ...shape, requests: warmupRequests } : { ...shape, seconds: WARMUP_SECONDS });
  const run = await load(target, shape);
  return { warmup, run };
}

/**
 * Each target warmed up, then measured in `rounds` turns of `seconds / rounds` each, the targets
 * taking turns: a machine whose speed drifts during the bench (a shared host does) then slows every
 * target alike, where one long run after another would put the drift into their ratios.
 */
export async function measureInTurns(
  targets: LoadTarget[],
  rounds: number,
  shape: LoadShape = { connections: CONNECTIONS, seconds: MEASURE_SECONDS },
): Promise<{ warmup: LoadFigures; run: LoadFigures }[]> {
  const warmups: LoadFigures[] = [];
  for (const target of targets) warmups.push(await load(target, { ...shape, seconds: WARMUP_SECONDS }));
  const turns: LoadFigures[][] = targets.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [index, target] of targets.entries()) turns[index]!.push(await load(target, { ...shape, seconds: shape.seconds / rounds }));
  }
  return targets.map((_, index) => ({ warmup: warmups[index]!, run: combined(turns[index]!) }));
}

/** Runs of one target as one: counts summed, throughput over their whole time, percentiles over every answer. */
export function combined(runs: LoadFigures[]): LoadFigures {
  const sum = (pick: (run: LoadFigures) => number) => runs.reduce((total, run) => total + pick(run), 0);
  const timings = runs.flatMap((run) => run.timings);
  const seconds = sum((run) => run.seconds);
  return {
    requestsPerSecond: sum((run) => run.requests) / seconds,
    // autocannon's histograms cannot be merged: the highest of the runs' p99.
    p99Ms: Math.max(...runs.map((run) => run.p99Ms)),
    latency: percentiles(timings),
    requests: sum((run) => run.requests),
    seconds,
    non2xx: sum((run) => run.non2xx),
    errors: sum((run) => run.errors),
    timeouts: sum((run) => run.timeouts),
    badBodies: sum((run) => run.badBodies),
    samples: runs.flatMap((run) => run.samples).slice(0, KEPT_FAILURES),
    timings,
  };
}

/** Whether a run saw anything but clean 2xx answers. */
export function failed(figures: LoadFigures): boolean {
  return figures.non2xx + figures.errors + figures.timeouts + figures.badBodies > 0;
}

// A GraphQL failure answers 200 with `errors`: status codes alone would call it a success.
const graphqlBody = (text: string) => text.includes('"results"') && !text.includes('"errors"');

async function load(target: LoadTarget, shape: LoadShape): Promise<LoadFigures> {
  const samples: string[] = [];
  const timings: number[] = [];
  const verify = target.verifyBody ?? graphqlBody;
  let sent = 0;
  const variant = target.variant;
  const requests = variant && [{ setupRequest: (request: autocannon.Request) => ({ ...request, ...variant(sent++, shape.connections) }) }];
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: target.url,
        method: target.method,
        headers: target.headers,
        body: target.body,
        ...(requests ? { requests } : {}),
        connections: shape.connections,
        ...(shape.requests ? { amount: shape.requests } : { duration: shape.seconds }),
        ...(shape.timeoutSeconds ? { timeout: shape.timeoutSeconds } : {}),
        verifyBody: (body) => {
          const text = String(body ?? '');
          const ok = verify(text);
          if (!ok && samples.length < KEPT_FAILURES) samples.push(text.slice(0, 500));
          return ok;
        },
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, status, _bytes, milliseconds) => {
      if (status >= 200 && status < 300) timings.push(milliseconds);
    });
  });
  return {
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    latency: percentiles(timings),
    requests: result.requests.total,
    seconds: result.duration,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    badBodies: result.mismatches,
    samples,
    timings,
  };
}

/** Nearest-rank percentiles (the smallest timing with at least p% of timings at or below it). */
export function percentiles(timings: number[]): Percentiles {
  const sorted = Float64Array.from(timings).sort();
  const rank = (p: number) => (sorted.length === 0 ? Number.NaN : sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!);
  return { p50: rank(50), p90: rank(90), p95: rank(95), p99: rank(99) };
}
