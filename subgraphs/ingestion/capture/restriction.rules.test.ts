import { describe, expect, it } from 'vitest';
import type { IngestionRestrictionRule } from '../../projects/facade.js';
import type { CapturedEvent } from './captured-event.js';
import { applyRestrictions } from './restriction.rules.js';

const captured = (fields: Partial<CapturedEvent>): CapturedEvent => ({
  index: 0,
  uuid: '0190a000-0000-7000-8000-000000000001',
  derived_from: null,
  event: '$pageview',
  distinct_id: 'user-1',
  timestamp: '2026-01-01T00:00:00.000000Z',
  time: 0,
  properties: '{}',
  oversize: null,
  session_id: null,
  person: { set: null, set_once: null, unset: null, merge: null },
  group: null,
  group_types: [],
  ...fields,
});
const rule = (restriction_type: string, lists: Partial<IngestionRestrictionRule> = {}): IngestionRestrictionRule => ({
  restriction_type,
  distinct_ids: [],
  session_ids: [],
  event_names: [],
  event_uuids: [],
  pipelines: ['analytics', 'session_recordings'],
  ...lists,
});

describe('applyRestrictions', () => {
  it('drops matching events: every non-empty list must hold the value, any value of a list will do', () => {
    const events = [captured({ distinct_id: 'bot', event: 'a' }), captured({ distinct_id: 'bot', event: 'b' }), captured({ distinct_id: 'user', event: 'a' })];
    const { kept, dropped } = applyRestrictions(events, [rule('drop_event_from_ingestion', { distinct_ids: ['bot', 'crawler'], event_names: ['a'] })]);
    expect(kept.map((event) => `${event.distinct_id}/${event.event}`)).toEqual(['bot/b', 'user/a']);
    expect(dropped).toBe(1);
  });

  it('drops every event for a restriction without lists, and matches sessions', () => {
    expect(applyRestrictions([captured({})], [rule('drop_event_from_ingestion')]).kept).toEqual([]);
    const { kept } = applyRestrictions([captured({ session_id: 's1' }), captured({})], [rule('drop_event_from_ingestion', { session_ids: ['s1'] })]);
    expect(kept.map((event) => event.session_id)).toEqual([null]);
  });

  it('keeps skipped events but takes them away from persons', () => {
    const { kept } = applyRestrictions([captured({ distinct_id: 'load-test' }), captured({})], [rule('skip_person_processing', { distinct_ids: ['load-test'] })]);
    expect(kept.map((event) => event.person)).toEqual([null, { set: null, set_once: null, unset: null, merge: null }]);
  });

  it('leaves alone restrictions of other pipelines and the queue choices that mean nothing here', () => {
    const events = [captured({})];
    expect(applyRestrictions(events, [rule('drop_event_from_ingestion', { pipelines: ['session_recordings'] })]).kept).toHaveLength(1);
    expect(applyRestrictions(events, [rule('force_overflow_from_ingestion'), rule('redirect_to_dlq')]).kept).toHaveLength(1);
  });
});
