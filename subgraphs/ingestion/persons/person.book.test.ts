import { describe, expect, it } from 'vitest';
import type { PersonUpdate } from '../capture/captured-event.js';
import type { ProfileEntry } from '../profiles/profile-entry.js';
import { uuidV5 } from '../name-uuid.js';
import { PersonBook, type StoredPerson } from './person.book.js';

const update = (fields: Partial<PersonUpdate> = {}): PersonUpdate => ({ set: null, set_once: null, unset: null, merge: null, ...fields });
const entry = (distinct_id: string, time: number, fields: Partial<PersonUpdate> = {}): ProfileEntry => ({ distinct_id, time, person: update(fields), group: null });
const identify = (distinct_id: string, other: string, time = 10, fields: Partial<PersonUpdate> = {}) => entry(distinct_id, time, { ...fields, merge: { other, dangerously: false } });
const stored = (id: string, fields: Partial<StoredPerson> = {}): StoredPerson => ({ id, uuid: `00000000-0000-5000-8000-00000000000${id}`, properties: {}, is_identified: false, created_at: 100, ...fields });

function apply(entries: ProfileEntry[], existing: [string, StoredPerson][] = []) {
  const book = new PersonBook(1, new Map(existing));
  for (const item of entries) book.apply(item);
  return book.changes();
}

describe(PersonBook.name, () => {
  it('gives every new distinct id a person, with PostHog’s uuid and its earliest event’s time', () => {
    const { created, mappings } = apply([entry('a', 50), entry('a', 20), entry('b', 30)]);
    const posthogUuid = (distinctId: string) => uuidV5(`1:${distinctId}`, '932979b4-65c3-4424-8467-0b66ec27bc22');
    expect(created.map((person) => [person.uuid, person.created_at])).toEqual([
      [posthogUuid('a'), 20],
      [posthogUuid('b'), 30],
    ]);
    expect([...mappings.keys()]).toEqual(['a', 'b']);
  });

  it('applies $set_once, then $set, then $unset, in event order, and writes a stored person only when something changed', () => {
    const person = stored('1', { properties: { plan: 'free', email: 'old@x', left: 1 } });
    const { updated } = apply(
      [entry('a', 200, { set_once: { plan: 'pro', first: 'x' }, set: { email: 'new@x' } }), entry('a', 300, { unset: ['left', 'missing'] })],
      [['a', person]],
    );
    expect(updated).toHaveLength(1);
    expect(updated[0]!.properties).toEqual({ plan: 'free', email: 'new@x', first: 'x' });
    expect(apply([entry('a', 200, { set: { plan: 'free' } })], [['a', stored('1', { properties: { plan: 'free' } })]]).updated).toEqual([]);
  });

  it('keeps a property named __proto__ as a property', () => {
    const { created } = apply([entry('a', 1, { set: JSON.parse('{"__proto__": {"polluted": true}}') })]);
    expect(Object.getPrototypeOf(created[0]!.properties)).toBe(Object.prototype);
    expect(JSON.stringify(created[0]!.properties)).toBe('{"__proto__":{"polluted":true}}');
  });

  describe('$identify', () => {
    it('makes one identified person of two new ids', () => {
      const { created, mappings } = apply([identify('user', 'anon')]);
      expect(created).toHaveLength(1);
      expect(created[0]!.is_identified).toBe(true);
      expect(mappings.get('user')).toBe(mappings.get('anon'));
    });

    it('gives the anonymous person the identified id when only it exists', () => {
      const anon = stored('1', { properties: { seen: true } });
      const { created, updated, mappings } = apply([identify('user', 'anon')], [['anon', anon]]);
      expect(created).toEqual([]);
      expect(updated[0]).toMatchObject({ id: '1', is_identified: true });
      expect(mappings.get('user')!.id).toBe('1');
    });

    it('merges the anonymous person into the identified one: its values win where both have one, the earlier time stays', () => {
      const anon = stored('1', { properties: { plan: 'free', source: 'ad' }, created_at: 50 });
      const user = stored('2', { properties: { plan: 'pro' }, created_at: 80 });
      const { updated, merged, mappings } = apply([identify('user', 'anon', 90)], [['anon', anon], ['user', user]]);
      expect(merged.map(({ from, into }) => [from.id, into.id])).toEqual([['1', '2']]);
      expect(updated).toHaveLength(1);
      expect(updated[0]).toMatchObject({ id: '2', properties: { plan: 'pro', source: 'ad' }, created_at: 50, is_identified: true });
      // The stored id moves with its person (the merge moves every id of person 1), not one by one.
      expect(mappings.has('anon')).toBe(false);
    });

    it('does not merge a person identified by an earlier merge of the batch', () => {
      const { created, mappings } = apply([entry('c', 1), identify('b', 'a', 2), identify('c', 'b', 3)]);
      expect(created).toHaveLength(2);
      expect(mappings.get('a')).toBe(mappings.get('b'));
      expect(mappings.get('c')).not.toBe(mappings.get('b'));
    });

    it('merges no person that is identified already, unless $merge_dangerously says so', () => {
      const other = stored('1', { is_identified: true });
      const user = stored('2');
      expect(apply([identify('user', 'other')], [['other', other], ['user', user]]).merged).toEqual([]);
      const dangerous = apply([entry('user', 10, { merge: { other: 'other', dangerously: true } })], [['other', other], ['user', user]]);
      expect(dangerous.merged.map(({ from, into }) => [from.id, into.id])).toEqual([['1', '2']]);
    });

    it('follows merges made in one batch to the person that remains', () => {
      const { created, merged, mappings } = apply(
        [entry('a', 1), entry('b', 2), identify('b', 'a', 3), entry('c', 4), entry('c', 5, { merge: { other: 'b', dangerously: true } })],
        [['x', stored('9', { properties: {} })]],
      );
      expect(merged).toEqual([]);
      expect(created).toHaveLength(1);
      const survivor = mappings.get('c')!;
      expect(mappings.get('a')).toBe(survivor);
      expect(mappings.get('b')).toBe(survivor);
      expect(survivor.created_at).toBe(1);
    });

    it('leaves the stored persons merged away to be deleted, their ids pointing at the survivor', () => {
      const { merged, created } = apply([entry('new', 1), identify('new', 'old', 2)], [['old', stored('4')]]);
      expect(created).toHaveLength(1);
      expect(merged.map(({ from, into }) => [from.id, into])).toEqual([['4', created[0]]]);
    });
  });

  it('tells the time of each distinct id’s person, for the known-persons record', () => {
    const book = new PersonBook(1, new Map([['a', stored('1', { created_at: 70 })]]));
    book.apply(entry('b', 40));
    book.apply(identify('b', 'a', 60));
    expect(Object.fromEntries(book.createdAtByDistinctId())).toEqual({ a: 40, b: 40 });
  });
});
