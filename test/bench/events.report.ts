import { BENCH_QUERIES } from './events.queries.js';

/** A query's figures on one platform: the median run and the rows it answered. */
export interface QueryFigure {
  p50: number;
  rows: number;
  /** Whether the SQL the platform ran read a materialized column. */
  readsColumns?: boolean;
}

/** ClickHouse's figures of one column set: the platform's runs and the engine's runs of the SQL it printed. */
export interface ClickHouseFigures {
  platform: Record<string, QueryFigure>;
  engine: Record<string, QueryFigure>;
}

export interface SizeFigures {
  size: number;
  runs: number;
  postgres: Record<string, QueryFigure>;
  json: ClickHouseFigures;
  /** With `mat_$browser` and `mat_$current_url`, or why there is none. */
  materialized: ClickHouseFigures | string;
}

/** A measure that ran, or why it did not. */
export type Outcome<T> = T | { failed: string };

/** What each store's platform did besides the four queries. */
export interface StoreFigures {
  /** `/batch/`: events sent and the time they took. */
  batch: { events: number; ms: number } | null;
  exportRate: Outcome<{ records: number; ms: number }>;
  endpoint: Outcome<{ liveMs: number; materializedMs: number }>;
}

/** Today's batch export read rate (batch-exports.bench.ts, PostgreSQL): the goal is three times it. */
export const TODAYS_EXPORT_ROWS_PER_SECOND = 43_000;

const ms = (value: number) => (value < 10 ? value.toFixed(1) : Math.round(value).toLocaleString('en'));
const ratio = (value: number) => (Number.isFinite(value) ? value.toFixed(value < 1 ? 3 : 2) : '—');
const rate = (events: number, time: number) => Math.round(events / (time / 1000));

/** One size's table: per query, both stores and ClickHouse's engine, with the ratios the issue names. */
export function queriesTable(figures: SizeFigures): string {
  const mat = typeof figures.materialized === 'string' ? null : figures.materialized;
  const head = [
    '| query | rows (expected) | PostgreSQL | ClickHouse | engine | ClickHouse ÷ engine (≤ 1.5) | ClickHouse ÷ PostgreSQL (≤ 0.1) |',
    ...(mat ? [' ClickHouse, mat_ columns | engine, mat_ columns | ÷ engine (≤ 1.5) | ÷ PostgreSQL (≤ 0.1) |'] : []),
  ].join('');
  const align = `|---|---:|---:|---:|---:|---:|---:|${mat ? '---:|---:|---:|---:|' : ''}`;
  const rows = BENCH_QUERIES.map(({ name, rows: expected }) => {
    const pg = figures.postgres[name]!;
    const ch = figures.json.platform[name]!;
    const engine = figures.json.engine[name]!;
    const answered = [pg.rows, ch.rows, engine.rows, ...(mat ? [mat.platform[name]!.rows, mat.engine[name]!.rows] : [])];
    const rowsCell = answered.every((count) => count === expected) ? `${expected}` : `**${answered.join(' / ')}** (${expected})`;
    const cells = [name, rowsCell, `${ms(pg.p50)} ms`, `${ms(ch.p50)} ms`, `${ms(engine.p50)} ms`, ratio(ch.p50 / engine.p50), ratio(ch.p50 / pg.p50)];
    if (mat) {
      const platform = mat.platform[name]!;
      const matEngine = mat.engine[name]!;
      cells.push(`${ms(platform.p50)} ms${platform.readsColumns ? '' : ' (JSON)'}`, `${ms(matEngine.p50)} ms`, ratio(platform.p50 / matEngine.p50), ratio(platform.p50 / pg.p50));
    }
    return `| ${cells.join(' | ')} |`;
  });
  return [head, align, ...rows].join('\n');
}

/** The table of ingestion, exports and the materialized endpoint, each against its goal. */
export function storesTable(postgres: StoreFigures, clickhouse: StoreFigures, direct: Outcome<{ rows: number; ms: number }> | null, events: number): string {
  const lines = ['| measure | PostgreSQL | ClickHouse | ratio | goal |', '|---|---:|---:|---:|---|'];
  if (postgres.batch && clickhouse.batch) {
    const pg = rate(postgres.batch.events, postgres.batch.ms);
    const ch = rate(clickhouse.batch.events, clickhouse.batch.ms);
    lines.push(`| \`/batch/\` events/s (${clickhouse.batch.events.toLocaleString('en')} distinct events) | ${pg.toLocaleString('en')} | ${ch.toLocaleString('en')} | ${ratio(ch / pg)} | ClickHouse ÷ PostgreSQL ≥ 1 |`);
    if (direct && !('failed' in direct)) {
      const straight = rate(direct.rows, direct.ms);
      lines.push(`| the same rows by a direct \`@clickhouse/client\` insert, rows/s | — | ${straight.toLocaleString('en')} | ${ratio(ch / straight)} | \`/batch/\` ÷ direct ≥ 0.8 |`);
    } else if (direct) lines.push(`| the same rows by a direct \`@clickhouse/client\` insert | — | failed: ${direct.failed} | — | ≥ 0.8 |`);
  }
  // Whole weeks are backfilled, so the last days' events stay out; an export that does not read
  // the store (yet) exports far fewer: said, not hidden.
  const exported = (figure: StoreFigures['exportRate']) =>
    'failed' in figure
      ? `failed: ${figure.failed}`
      : `${rate(figure.records, figure.ms).toLocaleString('en')} (${figure.records.toLocaleString('en')} rows${figure.records >= 0.9 * events ? '' : `: **not the store's ${events.toLocaleString('en')} events**`})`;
  const chExport = clickhouse.exportRate;
  const exportRatio = 'failed' in chExport ? '—' : ratio(rate(chExport.records, chExport.ms) / TODAYS_EXPORT_ROWS_PER_SECOND);
  lines.push(`| batch export read rate, rows/s (a year's whole weeks backfilled, a run a week, to a PostgreSQL table; the job queue included) | ${exported(postgres.exportRate)} | ${exported(chExport)} | ${exportRatio} of ${TODAYS_EXPORT_ROWS_PER_SECOND.toLocaleString('en')} | ClickHouse ≥ 3 × ${TODAYS_EXPORT_ROWS_PER_SECOND.toLocaleString('en')} |`);
  const endpoint = (figure: StoreFigures['endpoint']) => ('failed' in figure ? `failed: ${figure.failed}` : `${ms(figure.liveMs)} / ${ms(figure.materializedMs)} ms = ${(figure.liveMs / figure.materializedMs).toFixed(1)}×`);
  lines.push(`| trend endpoint, live p50 / materialized p50 | ${endpoint(postgres.endpoint)} | ${endpoint(clickhouse.endpoint)} | — | ClickHouse ≥ 20× |`);
  return lines.join('\n');
}
