import { createRequire } from 'node:module';
import { FairSlots } from '../../../shared/subgraph/fair-slots.js';
import { WorkerBudgetError, WorkerPool } from '../../../shared/subgraph/worker-pool.js';
import { PARSE_BUDGET_MS, PARSE_WORKERS } from '../hogql.limits.js';

/** What a worker answers: PostHog's parser's JSON text, or that the parser ran out of stack or time. */
export type ParseOutcome = { json: string } | { tooComplex: 'stack' | 'budget' };

/**
 * Runs in each worker. The parser's instance is unusable once it ran out of stack, so it is then
 * replaced before the next parse. One parse at start-up, so that a fresh worker (one that replaced
 * a stuck one) is not still warming up inside a tenant's budget.
 */
const SETUP = `async ({ parserPath }) => {
  const create = require(parserPath);
  let parser = await create();
  parser.parseSelect('SELECT event, count() FROM events WHERE timestamp > now() - INTERVAL 1 DAY GROUP BY event', false);
  return async (query) => {
    try {
      return { json: parser.parseSelect(query, false) };
    } catch {
      parser = await create();
      return { tooComplex: 'stack' };
    }
  };
}`;

let pool: WorkerPool<string, ParseOutcome> | null = null;

/**
 * The workers shared fairly between environments: one environment's long parses hold at most its
 * share of them while another's wait, so a tenant sending texts that run to the budget delays
 * only its own parses.
 */
let turns: FairSlots | null = null;

/**
 * Parses HogQL text with PostHog's WebAssembly parser in a worker thread, within PARSE_BUDGET_MS,
 * taking its turn among the parses of `environmentId`'s environment.
 */
export async function parseInWorker(environmentId: number, query: string): Promise<ParseOutcome> {
  turns ??= new FairSlots(PARSE_WORKERS);
  pool ??= new WorkerPool({
    setup: SETUP,
    data: { parserPath: createRequire(import.meta.url).resolve('@posthog/hogql-parser') },
    size: PARSE_WORKERS,
    budgetMs: PARSE_BUDGET_MS,
  });
  const release = await turns.acquire(environmentId);
  try {
    return await pool.run(query);
  } catch (error) {
    if (error instanceof WorkerBudgetError) return { tooComplex: 'budget' };
    throw error;
  } finally {
    release();
  }
}
