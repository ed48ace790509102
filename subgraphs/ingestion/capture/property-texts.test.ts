import { describe, expect, it } from 'vitest';
import { propertyTexts } from './property-texts.js';

describe('propertyTexts', () => {
  it("finds each event's properties as sent, in a list, an envelope's batch or one event", () => {
    expect(propertyTexts('[{"event": "a", "properties": {"n": 1.50, "big": 12345678901234567890}}, {"event": "b"}]', 'array')).toEqual([
      '{"n": 1.50, "big": 12345678901234567890}',
      null,
    ]);
    expect(propertyTexts('{"api_key": "k", "batch": [{"properties": {}}], "sent_at": null}', 'batch')).toEqual(['{}']);
    expect(propertyTexts(' \n{"event": "x", "properties":\t{"a": [1, {"b": null}]} }\n', 'single')).toEqual(['{"a": [1, {"b": null}]}']);
    expect(propertyTexts('{"batch": []}', 'batch')).toEqual([]);
    expect(propertyTexts('[]', 'array')).toEqual([]);
  });

  it('is not misled by quotes, backslashes and brackets inside strings, or by escaped key names', () => {
    const text = JSON.stringify([
      { event: '}{', properties: { 'a"b': 'c\\', d: ']["\\"', e: '\\\\"' }, x: '"properties": 1' },
      { 'propert\u0069es': 'ignored' },
    ]);
    expect(propertyTexts(text, 'array')).toEqual([JSON.stringify({ 'a"b': 'c\\', d: ']["\\"', e: '\\\\"' }), '"ignored"']);
    expect(propertyTexts('[{"propert\\u0069es": {"k": 1}}]', 'array')).toEqual(['{"k": 1}']);
  });

  it('takes the last of repeated keys, as JSON.parse does, and the value whatever its type', () => {
    expect(propertyTexts('[{"properties": {"a": 1}, "properties": {"b": 2}}]', 'array')).toEqual(['{"b": 2}']);
    expect(propertyTexts('{"batch": 1, "batch": [{"properties": null}, 3, "s", {"properties": -1.5e+3}]}', 'batch')).toEqual(['null', null, null, '-1.5e+3']);
  });

  it('walks a body near the size limit whatever it holds: millions of strings, of escapes, of levels', () => {
    const wrap = (properties: string) => `[{"properties": ${properties}}]`;
    for (const properties of [`{${'"a":"b",'.repeat(3_000_000)}"z":1}`, `{"k": "${'\\\\'.repeat(5_000_000)}"}`, `${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`]) {
      expect(propertyTexts(wrap(properties), 'array')[0]).toHaveLength(properties.length);
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
    const events = Array.from({ length: 200 }, (_, i) => (i % 7 === 0 ? { event: 'e' } : { event: 'e', properties: value(0), after: value(1) }));
    const text = JSON.stringify({ batch: events }, null, 1);
    const texts = propertyTexts(text, 'batch');
    expect(texts.map((found) => (found === null ? undefined : JSON.parse(found)))).toEqual(events.map((event) => (event as { properties?: unknown }).properties));
  });
});
