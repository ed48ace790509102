/** What an event asks of its person, read from `$set`, `$set_once`, `$unset` and identity events. */
export interface PersonUpdate {
  set: Record<string, unknown> | null;
  set_once: Record<string, unknown> | null;
  unset: string[] | null;
  /** `$identify` (its `$anon_distinct_id`), `$create_alias` or `$merge_dangerously` (its `alias`). */
  merge: { other: string; dangerously: boolean } | null;
}

/** A `$groupidentify` (or the API document's `$group_identify`): a group's properties. */
export interface GroupUpdate {
  group_type: string;
  group_key: string;
  group_set: Record<string, unknown>;
}

/**
 * An event of a batch that passed every rule: what storing it and its profile changes need. Its
 * properties are kept as JSON text, so that the parsed request can go as soon as it is read.
 */
export interface CapturedEvent {
  /** Its place in the batch, for errors. */
  index: number;
  /** As sent, or derived from `derived_from` once the environment is known (empty until then). */
  uuid: string;
  /** For an event sent without a uuid: what its uuid is derived from (with the environment). */
  derived_from: string | null;
  event: string;
  distinct_id: string;
  /** When it happened, as stored: `2024-05-01T12:00:00.123456Z`. */
  timestamp: string;
  /** The same, in milliseconds since the epoch. */
  time: number;
  /** Its properties as stored, JSON text (`storedProperties`). */
  properties: string;
  /** Their size as compact JSON when it passes MAX_EVENT_PROPERTIES_BYTES (the batch is refused then), else null. */
  oversize: number | null;
  /** `properties.$session_id`, which ingestion restrictions may name. */
  session_id: string | null;
  /** Null when the event keeps away from persons (`$process_person_profile: false`, or a restriction). */
  person: PersonUpdate | null;
  group: GroupUpdate | null;
  /** Group types the event names (`$groups` and a group update's own): each needs an index. */
  group_types: string[];
}
