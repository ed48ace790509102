import type { IngestionRestrictionRule } from '../../projects/facade.js';
import type { CapturedEvent } from './captured-event.js';

/**
 * The environment's event ingestion restrictions, as PostHog applies them to its analytics
 * pipeline: `drop_event_from_ingestion` drops matching events, `skip_person_processing` stores
 * them without touching persons. Within a restriction, every non-empty list must match (a list
 * matches when it holds the event's value); a restriction with no lists matches every event.
 * `force_overflow_from_ingestion` and `redirect_to_dlq` choose between PostHog's queues; there is
 * one here, so those events are ingested as usual.
 */
export function applyRestrictions(events: CapturedEvent[], rules: IngestionRestrictionRule[]): { kept: CapturedEvent[]; dropped: number } {
  const active = rules.filter((rule) => rule.pipelines.includes('analytics'));
  const drops = active.filter((rule) => rule.restriction_type === 'drop_event_from_ingestion');
  const skips = active.filter((rule) => rule.restriction_type === 'skip_person_processing');
  if (drops.length === 0 && skips.length === 0) return { kept: events, dropped: 0 };
  const kept = events.filter((event) => !drops.some((rule) => matches(rule, event)));
  for (const event of kept) if (skips.some((rule) => matches(rule, event))) event.person = null;
  return { kept, dropped: events.length - kept.length };
}

function matches(rule: IngestionRestrictionRule, event: CapturedEvent): boolean {
  const checks: [string[], string | null][] = [
    [rule.distinct_ids, event.distinct_id],
    [rule.session_ids, event.session_id],
    [rule.event_names, event.event],
    [rule.event_uuids, event.uuid],
  ];
  return checks.every(([list, value]) => list.length === 0 || (value !== null && list.includes(value)));
}
