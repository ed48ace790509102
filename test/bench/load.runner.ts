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
}

export interface LoadFigures {
  requestsPerSecond: number;
  p99Ms: number;
  requests: number;
  non2xx: number;
  /** Connection errors (timeouts included). */
  errors: number;
  timeouts: number;
  /** Answers, of any status, that carry GraphQL errors or no `results`. */
  badBodies: number;
  /** A few bodies that failed the check, to quote when the run fails. */
  samples: string[];
}

/** A short warm-up (JIT, connection pools, query-plan caches), then the measured run. */
export async function measure(target: LoadTarget): Promise<{ warmup: LoadFigures; run: LoadFigures }> {
  const warmup = await load(target, WARMUP_SECONDS);
  const run = await load(target, MEASURE_SECONDS);
  return { warmup, run };
}

/** Whether a run saw anything but clean 2xx answers. */
export function failed(figures: LoadFigures): boolean {
  return figures.non2xx + figures.errors + figures.timeouts + figures.badBodies > 0;
}

async function load(target: LoadTarget, seconds: number): Promise<LoadFigures> {
  const samples: string[] = [];
  const result = await autocannon({
    url: target.url,
    method: target.method,
    headers: target.headers,
    body: target.body,
    connections: CONNECTIONS,
    duration: seconds,
    // A GraphQL failure answers 200 with `errors`: status codes alone would call it a success.
    verifyBody: (body) => {
      const text = String(body ?? '');
      const ok = text.includes('"results"') && !text.includes('"errors"');
      if (!ok && samples.length < KEPT_FAILURES) samples.push(text.slice(0, 500));
      return ok;
    },
  });
  return {
    requestsPerSecond: result.requests.average,
    p99Ms: result.latency.p99,
    requests: result.requests.total,
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    badBodies: result.mismatches,
    samples,
  };
}
