import { describe, expect, it } from 'vitest';
import { objectMembers, sentTexts } from './sent-texts.js';

describe('sentTexts', () => {
  it("finds each event's properties and top-level sets as sent, in a list, an envelope's batch or one event", () => {
    expect(sentTexts('[{"event": "a", "properties": {"n": 1.50, "big": 12345678901234567890}, "$set": {"a": 1}}, {"event": "b"}, 3]', 'array')).toEqual([
      { properties: '{"n": 1.50, "big": 12345678901234567890}', $set: '{"a": 1}' },
      {},
      {},
    ]);
    expect(sentTexts('{"api_key": "k", "batch": [{"properties": {}, "$set_once": {}}], "sent_at": null}', 'batch')).toEqual([{ properties: '{}', $set_once: '{}' }]);
    expect(sentTexts(' \n{"event": "x", "properties":\t{"a": [1, {"b": null}]} }\n', 'single')).toEqual([{ properties: '{"a": [1, {"b": null}]}' }]);
    expect(sentTexts('{"batch": []}', 'batch')).toEqual([]);
    expect(sentTexts('{"batch": {"properties": {}}}', 'batch')).toEqual([]);
    expect(sentTexts(' [ ] ', 'array')).toEqual([]);
  });

  it('is not misled by quotes, backslashes and brackets inside strings, or by escaped key names', () => {
    const text = JSON.stringify([
      { event: '}{', properties: { 'a"b': 'c\\', d: ']["\\"', e: '\\\\"' }, x: '"properties": 1' },
      { 'propert\u0069es': 'ignored' },
    ]);
    expect(sentTexts(text, 'array')).toEqual([{ properties: JSON.stringify({ 'a"b': 'c\\', d: ']["\\"', e: '\\\\"' }) }, { properties: '"ignored"' }]);
    expect(sentTexts('[{"propert\\u0069es": {"k": 1}}]', 'array')).toEqual([{ properties: '{"k": 1}' }]);
  });

  it('takes the last of repeated keys, as JSON.parse does, and the value whatever its type', () => {
    expect(sentTexts('[{"properties": {"a": 1}, "properties": {"b": 2}}]', 'array')).toEqual([{ properties: '{"b": 2}' }]);
    expect(sentTexts('{"batch": [{"properties": 0}], "batch": [{"properties": null}, 3, "s", {"properties": -1.5e+3}]}', 'batch')).toEqual([
      { properties: 'null' },
      {},
      {},
      { properties: '-1.5e+3' },
    ]);
  });

  it("reads the members of an object's text, the last of a repeated key at the first one's place", () => {
    expect([...objectMembers(' {"$set": {"a": 1.50}, "b": [1], "\\u0063": "x", "$set": 2}')]).toEqual([
      ['$set', '2'],
      ['b', '[1]'],
      ['c', '"x"'],
    ]);
    expect(objectMembers('{ }').size).toBe(0);
    expect(objectMembers('[1]').size).toBe(0);
  });

  it('walks a body near the size limit whatever it holds: millions of strings, of escapes, of levels', () => {
    const wrap = (properties: string) => `[{"properties": ${properties}}]`;
    for (const properties of [`{${'"a":"b",'.repeat(3_000_000)}"z":1}`, `{"k": "${'\\\\'.repeat(5_000_000)}"}`, `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`]) {
      expect(sentTexts(wrap(properties), 'array')[0]!.properties).toHaveLength(properties.length);
    }
  });

  it('agrees with JSON.parse on generated events', () => {
    let state = 7;
    const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
    const value = (depth: number): unknown => {
      const roll = next();
      if (depth > 3 || roll < 0.3) return ['a"\\b', '}]', 12, -0.5, true, null, '', '\u00e9\ud83c\udf89'][Math.floor(next() * 8)];
      if (roll < 0.6) return Array.from({ length: Math.floor(next() * 4) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(next() * 4) }, (_, i) => [`k${i}"\\`, value(depth + 1)]));
    };
    const events = Array.from({ length: 200 }, (_, i) => (i % 7 === 0 ? { event: 'e' } : { event: 'e', properties: value(0), after: value(1), $set: value(0) }));
    for (const spacing of [0, 1]) {
      const texts = sentTexts(JSON.stringify({ batch: events }, null, spacing), 'batch');
      const parsed = texts.map((found) => Object.fromEntries(Object.entries(found).map(([key, text]) => [key, JSON.parse(text)])));
      expect(parsed).toEqual(events.map(({ properties, $set }) => ({ ...(properties === undefined ? {} : { properties }), ...($set === undefined ? {} : { $set }) })));
    }
  });
});
