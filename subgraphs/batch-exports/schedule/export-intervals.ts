import type { BatchExport } from '../exports/batch-export.entity.js';
import { boundaryAtOrBefore, intervalsEndingIn, type DataInterval, type Interval, type IntervalSpec } from './interval.js';

/** How an export's intervals lie. */
export function specOf(batchExport: Pick<BatchExport, 'interval' | 'interval_offset' | 'timezone'>): IntervalSpec {
  return { interval: batchExport.interval as Interval, offsetSeconds: batchExport.interval_offset, timezone: batchExport.timezone };
}

/** Most runs one pass of the scheduler makes for an export (a platform down for long catches up over a few passes). */
export const MAX_RUNS_PER_PASS = 500;

/**
 * The scheduled runs an export is due: one per interval ended since `scheduled_until`, up to `now`
 * and its `end_at`. They tile time: the first starts where the last scheduled run ended, even
 * when the interval changed meanwhile (so nothing is exported twice or skipped).
 */
export function dueIntervals(batchExport: Pick<BatchExport, 'interval' | 'interval_offset' | 'timezone' | 'scheduled_until' | 'end_at' | 'start_at'>, now: Date): DataInterval[] {
  const spec = specOf(batchExport);
  const until = batchExport.end_at && batchExport.end_at < now ? batchExport.end_at : now;
  // A start moved past the schedule (a PATCH of start_at) begins the schedule at its interval.
  const startAt = batchExport.start_at;
  const from = startAt && startAt > batchExport.scheduled_until ? boundaryAtOrBefore(spec, startAt) : batchExport.scheduled_until;
  const intervals = intervalsEndingIn(spec, from, until, MAX_RUNS_PER_PASS);
  return intervals
    .filter(({ end }) => !startAt || end.getTime() > startAt.getTime())
    .map(({ start, end }) => ({ start: start < from ? from : start, end }));
}
