import { describe, expect, it } from 'vitest';
import type { CapturedEvent, PersonUpdate } from '../capture/captured-event.js';
import { isNoop, KnownPersons } from './known-person.cache.js';
import { profileEntries } from './profile-entry.js';

const plain: PersonUpdate = { set: null, set_once: null, unset: null, merge: null };
const captured = (distinct_id: string, time: number, fields: Partial<CapturedEvent> = {}): CapturedEvent => ({
  index: 0,
  uuid: '',
  derived_from: null,
  event: 'e',
  distinct_id,
  timestamp: '',
  time,
  properties: '{}',
  oversize: null,
  session_id: null,
  person: plain,
  group: null,
  group_types: [],
  ...fields,
});

describe('profileEntries', () => {
  it('makes one entry of a run of plain events of one id, at its earliest time, and keeps every other event in order', () => {
    const entries = profileEntries(
      [
        captured('a', 5),
        captured('a', 3),
        captured('b', 4),
        captured('b', 6, { person: { ...plain, set: { x: 1 } } }),
        captured('b', 7),
        captured('c', 8, { person: null }),
        captured('c', 9, { person: null, group: { group_type: 'company', group_key: 'acme', group_set: { n: 1 } } }),
      ],
      new Map([['company', 2]]),
    );
    expect(entries.map((entry) => [entry.distinct_id, entry.time, entry.person?.set ?? null, entry.group])).toEqual([
      ['a', 3, null, null],
      ['b', 4, null, null],
      ['b', 6, { x: 1 }, null],
      ['b', 7, null, null],
      ['c', 9, null, { group_type_index: 2, group_key: 'acme', group_set: { n: 1 } }],
    ]);
  });
});

describe('known persons', () => {
  it('finds a plain entry of a known id, dated after its person, a no-op, and nothing else', () => {
    const known = new KnownPersons();
    known.remember('db', 1, 'a', 100);
    const ids = known.of('db', 1);
    expect(isNoop(ids, { distinct_id: 'a', time: 100, person: plain, group: null })).toBe(true);
    expect(isNoop(ids, { distinct_id: 'a', time: 99, person: plain, group: null })).toBe(false);
    expect(isNoop(ids, { distinct_id: 'b', time: 200, person: plain, group: null })).toBe(false);
    expect(isNoop(ids, { distinct_id: 'a', time: 200, person: { ...plain, set: { x: 1 } }, group: null })).toBe(false);
    expect(isNoop(known.of('db', 2), { distinct_id: 'a', time: 200, person: plain, group: null })).toBe(false);
    expect(isNoop(known.of('other db', 1), { distinct_id: 'a', time: 200, person: plain, group: null })).toBe(false);
  });
});
