import type { CapturedEvent, PersonUpdate } from '../capture/captured-event.js';
import type { JsonObject } from '../../shared/validation.js';

/** What one stored event asks of persons and groups: queued with its batch, applied in order. */
export interface ProfileEntry {
  distinct_id: string;
  /** The event's time, in milliseconds: a new person or group dates from its earliest event. */
  time: number;
  /** Null for an event that keeps away from persons. */
  person: PersonUpdate | null;
  group: { group_type_index: number; group_key: string; group_set: JsonObject } | null;
}

/**
 * The entries of a batch's new events, in their order. A run of plain events (no property
 * change, no merge) of one distinct id is one entry: applying it twice changes nothing.
 */
export function profileEntries(events: CapturedEvent[], groupIndexes: Map<string, number>): ProfileEntry[] {
  const entries: ProfileEntry[] = [];
  for (const event of events) {
    const group = event.group && { group_type_index: groupIndexes.get(event.group.group_type)!, group_key: event.group.group_key, group_set: event.group.group_set };
    if (!event.person && !group) continue;
    const previous = entries.at(-1);
    if (!group && previous && !previous.group && isPlain(event.person) && isPlain(previous.person) && previous.distinct_id === event.distinct_id) {
      previous.time = Math.min(previous.time, event.time);
      continue;
    }
    entries.push({ distinct_id: event.distinct_id, time: event.time, person: event.person, group });
  }
  return entries;
}

function isPlain(update: PersonUpdate | null): boolean {
  return update !== null && !update.set && !update.set_once && !update.unset && !update.merge;
}
