import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../shared/errors.js';
import { identify, readBatch, type BatchInput } from './batch.rules.js';
import { refusal as refusalOf } from './refusal.fixture.js';

const NOW = Date.parse('2026-11-23T12:00:00Z');
const OLD = '2026-11-01T10:00:00.000Z';
const RECENT = '2026-11-23T11:00:00.000Z';
const event = (fields: Record<string, unknown> = {}) => ({ event: '$pageview', distinct_id: 'user-1', timestamp: OLD, properties: {}, ...fields });
const read = (batch: unknown[], extra: Partial<BatchInput> = {}) => readBatch({ batch, ...extra }, NOW);

/** The 400 a batch is refused with: its field, code and message. */
const refusal = (batch: unknown[], extra: Partial<BatchInput> = {}) => refusalOf(() => read(batch, extra));

describe('readBatch', () => {
  describe('refuses a batch, naming the event and field', () => {
    it.each([
      ['no event name', [event(), event({ event: undefined })], 'batch__1__event', 'required'],
      ['a blank event name', [event({ event: '  ' })], 'batch__0__event', 'blank'],
      ['an event name that is no string', [event({ event: 42 })], 'batch__0__event', 'invalid_input'],
      ['an event name over 200 characters', [event({ event: 'e'.repeat(201) })], 'batch__0__event', 'max_length'],
      ['no distinct_id anywhere', [event({ distinct_id: undefined })], 'batch__0__distinct_id', 'required'],
      ['a blank distinct_id', [event({ distinct_id: '   ' })], 'batch__0__distinct_id', 'blank'],
      ['a distinct_id over 200 characters', [event({ distinct_id: 'd'.repeat(201) })], 'batch__0__distinct_id', 'max_length'],
      ['a distinct_id that is an object', [event({ distinct_id: { id: 1 } })], 'batch__0__distinct_id', 'invalid_input'],
      ['an over-long distinct_id in properties', [event({ distinct_id: undefined, properties: { distinct_id: 'd'.repeat(201) } })], 'batch__0__properties__distinct_id', 'max_length'],
      ['no timestamp', [event({ timestamp: undefined })], 'batch__0__timestamp', 'required'],
      ['an unparseable timestamp', [event(), event(), event({ timestamp: 'last tuesday' })], 'batch__2__timestamp', 'invalid_input'],
      ['a timestamp that is a number', [event({ timestamp: 1_700_000_000 })], 'batch__0__timestamp', 'invalid_input'],
      ['an invalid uuid', [event({ uuid: 'not-a-uuid' })], 'batch__0__uuid', 'invalid_input'],
      ['properties that are a list', [event({ properties: [1, 2] })], 'batch__0__properties', 'invalid_input'],
      ['a top-level $set that is a string', [event({ $set: 'x' })], 'batch__0__$set', 'invalid_input'],
      ['a $set_once that is a list', [event({ properties: { $set_once: [] } })], 'batch__0__properties__$set_once', 'invalid_input'],
      ['an $unset that is no list of names', [event({ properties: { $unset: 'email' } })], 'batch__0__properties__$unset', 'not_a_list'],
      ['an event that is no object', [event(), 'pageview'], 'batch__1', 'invalid_input'],
      ['$groups that is no object', [event({ properties: { $groups: 'acme' } })], 'batch__0__properties__$groups', 'invalid_input'],
      ['a $create_alias without alias', [event({ event: '$create_alias' })], 'batch__0__properties__alias', 'required'],
      ['a numeric distinct_id past 2^53 (JSON.parse rounded it)', [event({ distinct_id: JSON.parse("1234567890123456789") })], 'batch__0__distinct_id', 'invalid_input'],
      ['a numeric $anon_distinct_id past 2^53', [event({ event: '$identify', properties: { $anon_distinct_id: 2 ** 60 } })], 'batch__0__properties__$anon_distinct_id', 'invalid_input'],
      ['a distinct_id of 201 emoji', [event({ distinct_id: '🦔'.repeat(201) })], 'batch__0__distinct_id', 'max_length'],
    ])('%s', (_case, batch, attr, code) => {
      expect(refusal(batch)).toMatchObject({ attr, code });
    });

    it.each(['$groupidentify', '$group_identify'])('%s without $group_type or $group_key', (name) => {
      expect(refusal([event({ event: name, properties: { $group_key: 'acme' } })])).toMatchObject({ attr: 'batch__0__properties__$group_type', code: 'required' });
      expect(refusal([event({ event: name, properties: { $group_type: 'company' } })])).toMatchObject({ attr: 'batch__0__properties__$group_key', code: 'required' });
      expect(refusal([event({ event: name, properties: { $group_type: 'company', $group_key: 'k'.repeat(401) } })])).toMatchObject({ code: 'max_length' });
    });

    it('an empty batch, or one that is no list', () => {
      expect(refusal([])).toMatchObject({ attr: 'batch', code: 'empty' });
      expect(() => readBatch({ batch: 'x' as never }, NOW)).toThrow(ValidationError);
    });

    it('an unparseable sent_at', () => {
      expect(refusal([event()], { sent_at: 'soon' })).toMatchObject({ attr: 'sent_at', code: 'invalid_input' });
    });
  });

  describe('the 48-hour rule', () => {
    it('refuses a historical event less than 48 hours old, saying how old it is', () => {
      const problem = refusal([event(), event({ timestamp: RECENT })], { historical_migration: true });
      expect(problem).toMatchObject({ attr: 'batch__1__timestamp', code: 'too_recent' });
      expect(problem).toMatchObject({ status: 400 });
      expect(problem.message).toMatch(/at least 48 hours .* 1 hours old/);
      const future = refusal([event({ timestamp: new Date(NOW + 86_400_000).toISOString() })], { historical_migration: true });
      expect(future).toMatchObject({ code: 'too_recent', message: expect.stringContaining('this one is dated in the future') });
    });

    it('takes an event 48 hours old, and recent events without historical_migration', () => {
      expect(read([event({ timestamp: new Date(NOW - 48 * 3_600_000).toISOString() })], { historical_migration: true })).toHaveLength(1);
      expect(read([event({ timestamp: RECENT })], { historical_migration: false })).toHaveLength(1);
      expect(read([event({ timestamp: RECENT })])).toHaveLength(1);
    });
  });

  it('counts lengths in characters as people count them: 200 emoji are 200, not 400', () => {
    expect(read([event({ distinct_id: '🦔'.repeat(200), event: '🦔'.repeat(200) })])[0]!.distinct_id).toHaveLength(400);
  });

  it('takes numeric ids up to 2^53 as their text, and booleans too, as PostHog does', () => {
    const [safe, flag] = read([event({ distinct_id: Number.MAX_SAFE_INTEGER }), event({ distinct_id: true })]);
    expect([safe!.distinct_id, flag!.distinct_id]).toEqual(['9007199254740991', 'true']);
  });

  it("keeps a historical event's own time whatever sent_at says: no skew moves it under 48 hours", () => {
    const threeDaysAgo = new Date(NOW - 72 * 3_600_000).toISOString();
    const tenDaysAgo = new Date(NOW - 240 * 3_600_000).toISOString();
    const [historical] = read([event({ timestamp: threeDaysAgo })], { historical_migration: true, sent_at: tenDaysAgo });
    expect(historical!.time).toBe(Date.parse(threeDaysAgo));
    const [live] = read([event({ timestamp: threeDaysAgo })], { sent_at: tenDaysAgo });
    expect(live!.time).toBe(NOW);
  });

  it("finds distinct_id at the top level (PostHog's SDKs), as $distinct_id, or in properties (the API document)", () => {
    const [top, dollar, inside, number] = read([
      event({ distinct_id: ' top ' }),
      event({ distinct_id: undefined, $distinct_id: 'dollar' }),
      event({ distinct_id: undefined, properties: { distinct_id: 'inside' } }),
      event({ distinct_id: 12345 }),
    ]);
    expect([top!.distinct_id, dollar!.distinct_id, inside!.distinct_id, number!.distinct_id]).toEqual(['top', 'dollar', 'inside', '12345']);
  });

  it('stores times in UTC with microseconds, and lower-cases given uuids', () => {
    const [given] = read([event({ timestamp: '2026-11-01T12:00:00.123456+01:00', uuid: '0190A000-0000-7000-8000-00000000000A' })]);
    expect(given).toMatchObject({ timestamp: '2026-11-01T11:00:00.123456Z', uuid: '0190a000-0000-7000-8000-00000000000a', derived_from: null });
  });

  it('reads what events ask of persons and groups', () => {
    const [identify, personless, groupUpdate] = read([
      event({ event: '$identify', distinct_id: 'user-1', $set: { plan: 'pro' }, properties: { $anon_distinct_id: 'anon-1', $set: { email: 'a@b.c' }, $set_once: { first: 1 }, $unset: ['old'] } }),
      event({ properties: { $process_person_profile: false, $set: { x: 1 } } }),
      event({ event: '$groupidentify', properties: { $group_type: 'company', $group_key: 42, $group_set: { name: 'Acme' }, $groups: { project: 'p1' } } }),
    ]);
    expect(identify!.person).toEqual({ set: { email: 'a@b.c', plan: 'pro' }, set_once: { first: 1 }, unset: ['old'], merge: { other: 'anon-1', dangerously: false } });
    expect(personless!.person).toBeNull();
    expect(groupUpdate!.group).toEqual({ group_type: 'company', group_key: '42', group_set: { name: 'Acme' } });
    expect(groupUpdate!.group_types.sort()).toEqual(['company', 'project']);
  });

  it('merges nobody through placeholder ids, nor an id with itself', () => {
    const merges = read([
      event({ event: '$identify', properties: { $anon_distinct_id: 'null' } }),
      event({ event: '$identify', properties: { $anon_distinct_id: '"anonymous"' } }),
      event({ event: '$identify', distinct_id: 'undefined', properties: { $anon_distinct_id: 'anon-2' } }),
      event({ event: '$identify', properties: { $anon_distinct_id: 'user-1' } }),
      event({ event: '$merge_dangerously', properties: { alias: 'anon-3' } }),
    ]).map((captured) => captured.person!.merge);
    expect(merges).toEqual([null, null, null, null, { other: 'anon-3', dangerously: true }]);
  });
});

describe('identify', () => {
  it('derives the same uuid for the same event in the same environment, and another elsewhere', () => {
    const first = identify(read([event(), event({ event: 'other' })]), 7);
    const again = identify(read([event(), event({ event: 'other' })]), 7);
    const elsewhere = identify(read([event()]), 8);
    expect(first.map((captured) => captured.uuid)).toEqual(again.map((captured) => captured.uuid));
    expect(first[0]!.uuid).not.toBe(first[1]!.uuid);
    expect(first[0]!.uuid).not.toBe(elsewhere[0]!.uuid);
    expect(first[0]!.uuid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('keeps the first of two events with one uuid, as a retried batch sends them', () => {
    const uuid = '0190a000-0000-7000-8000-000000000001';
    const kept = identify(read([event({ uuid, event: 'first' }), event({ uuid, event: 'second' }), event(), event()]), 1);
    expect(kept.map((captured) => captured.event)).toEqual(['first', '$pageview']);
  });
});
