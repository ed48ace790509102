import type { PersonUpdate } from '../capture/captured-event.js';
import type { JsonObject } from '../../shared/validation.js';
import { uuidV5 } from '../name-uuid.js';
import type { ProfileEntry } from '../profiles/profile-entry.js';

/** PostHog's namespace for person ids: `uuidv5("<team id>:<distinct id>", this)`. */
const PERSON_NAMESPACE = '932979b4-65c3-4424-8467-0b66ec27bc22';

/** A person as stored, read with the distinct ids of a batch. */
export interface StoredPerson {
  id: string;
  uuid: string;
  properties: JsonObject;
  is_identified: boolean;
  created_at: number;
}

/** A person while a batch's events are applied to it. */
export interface PersonState {
  /** Null until the person is stored. */
  id: string | null;
  uuid: string;
  properties: JsonObject;
  is_identified: boolean;
  created_at: number;
  changed: boolean;
  /** Set when the person was merged into another: the one that took its distinct ids. */
  merged_into: PersonState | null;
}

/** What a batch changed, for the repository to write. */
export interface PersonChanges {
  created: PersonState[];
  updated: PersonState[];
  /** Stored persons merged into others (their remaining distinct ids follow them). */
  merged: { from: PersonState; into: PersonState }[];
  /** Distinct ids that name a person for the first time, or another person now. */
  mappings: Map<string, PersonState>;
}

/**
 * Applies events' profile entries to the persons their distinct ids name, in order, as PostHog's person
 * processing does: every distinct id gets a person; `$set_once`, `$set` and `$unset` change
 * properties; `$identify` and `$create_alias` merge the other id's person into the event's, unless
 * that person is identified already (`$merge_dangerously` merges anyway); the merged person keeps
 * the event person's values where both have one, and the earlier `created_at`.
 */
export class PersonBook {
  private readonly byDistinctId = new Map<string, PersonState>();
  private readonly states: PersonState[] = [];
  private readonly mappings = new Map<string, PersonState>();
  private readonly merged: { from: PersonState; into: PersonState }[] = [];

  constructor(
    private readonly environmentId: number,
    stored: Map<string, StoredPerson>,
  ) {
    const byId = new Map<string, PersonState>();
    for (const [distinctId, person] of stored) {
      let state = byId.get(person.id);
      if (!state) {
        state = { ...person, properties: { ...person.properties }, changed: false, merged_into: null };
        byId.set(person.id, state);
        this.states.push(state);
      }
      this.byDistinctId.set(distinctId, state);
    }
  }

  apply(entry: ProfileEntry): void {
    const update = entry.person;
    if (!update) return;
    if (update.merge) this.merge(entry.distinct_id, update.merge.other, update.merge.dangerously, entry.time);
    const person = this.personOf(entry.distinct_id) ?? this.create(entry.distinct_id, entry.time);
    applyProperties(person, update);
    if (entry.time < person.created_at) {
      person.created_at = entry.time;
      person.changed = true;
    }
  }

  changes(): PersonChanges {
    const alive = this.states.filter((state) => !state.merged_into);
    const final = new Map([...this.mappings].map(([distinctId, state]) => [distinctId, resolve(state)]));
    return {
      created: alive.filter((state) => state.id === null),
      updated: alive.filter((state) => state.id !== null && state.changed),
      merged: this.merged.map(({ from, into }) => ({ from, into: resolve(into) })),
      mappings: final,
    };
  }

  /** Each distinct id the book knows, with its person's `created_at` (after `changes()` is written). */
  *createdAtByDistinctId(): Generator<[string, number]> {
    for (const [distinctId, state] of this.byDistinctId) yield [distinctId, resolve(state).created_at];
  }

  private personOf(distinctId: string): PersonState | undefined {
    const state = this.byDistinctId.get(distinctId);
    if (!state) return undefined;
    const person = resolve(state);
    // Shortens the chain for the next look-up.
    if (person !== state) this.byDistinctId.set(distinctId, person);
    return person;
  }

  private create(distinctId: string, time: number): PersonState {
    const state: PersonState = {
      id: null,
      uuid: uuidV5(`${this.environmentId}:${distinctId}`, PERSON_NAMESPACE),
      properties: {},
      is_identified: false,
      created_at: time,
      changed: true,
      merged_into: null,
    };
    this.states.push(state);
    this.attach(distinctId, state);
    return state;
  }

  private attach(distinctId: string, state: PersonState): void {
    this.byDistinctId.set(distinctId, state);
    this.mappings.set(distinctId, state);
  }

  /** PostHog's identify/alias rules for the event's id `target` and the other id `other`. */
  private merge(target: string, other: string, dangerously: boolean, time: number): void {
    const into = this.personOf(target);
    const from = this.personOf(other);
    if (!into && !from) {
      const person = this.create(target, time);
      this.attach(other, person);
      identify(person);
    } else if (!into) {
      this.attach(target, from!);
      identify(from!);
    } else if (!from) {
      this.attach(other, into);
      identify(into);
    } else if (into === from || (from.is_identified && !dangerously)) {
      identify(into);
    } else {
      this.absorb(into, from);
    }
  }

  private absorb(into: PersonState, from: PersonState): void {
    into.properties = { ...from.properties, ...into.properties };
    into.created_at = Math.min(into.created_at, from.created_at);
    into.is_identified = true;
    into.changed = true;
    // Its distinct ids follow it through `merged_into` (personOf and changes() resolve it), so a
    // merge costs the same however many ids the book holds.
    from.merged_into = into;
    if (from.id !== null) this.merged.push({ from, into });
  }
}

function resolve(state: PersonState): PersonState {
  let current = state;
  while (current.merged_into) current = current.merged_into;
  return current;
}

function identify(person: PersonState): void {
  if (person.is_identified) return;
  person.is_identified = true;
  person.changed = true;
}

/** `$set_once` (only keys not set yet), then `$set`, then `$unset`, marking the person changed only when a value changes. */
function applyProperties(person: PersonState, update: PersonUpdate): void {
  const { properties } = person;
  for (const [key, value] of Object.entries(update.set_once ?? {})) {
    if (Object.hasOwn(properties, key)) continue;
    setOwn(properties, key, value);
    person.changed = true;
  }
  for (const [key, value] of Object.entries(update.set ?? {})) {
    if (Object.hasOwn(properties, key) && sameJson(properties[key], value)) continue;
    setOwn(properties, key, value);
    person.changed = true;
  }
  for (const key of update.unset ?? []) {
    if (!Object.hasOwn(properties, key)) continue;
    delete properties[key];
    person.changed = true;
  }
}

/** An own property, whatever its name: `properties.__proto__ = …` would replace the object's prototype instead. */
function setOwn(target: JsonObject, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

function sameJson(a: unknown, b: unknown): boolean {
  return a === b || (typeof a === 'object' && typeof b === 'object' && JSON.stringify(a) === JSON.stringify(b));
}
