import { describe, expect, it } from 'vitest';
import { MAX_EVENT_PROPERTIES_BYTES, oversize, storedProperties } from './stored-properties.js';
import { sentTexts } from './sent-texts.js';

/** The stored text of the one event in `text`, read as the rules read it. */
const stored = (text: string) => storedProperties(JSON.parse(text), sentTexts(text, 'single')[0]!, () => 'compact');

describe('storedProperties', () => {
  it('keeps the properties as sent, or none, and takes the compact JSON of an event that came parsed', () => {
    expect(stored('{"properties": {"n": 1.50,  "big": 12345678901234567890}}')).toBe('{"n": 1.50,  "big": 12345678901234567890}');
    expect(stored('{"event": "x"}')).toBe('{}');
    expect(stored('{"properties": null}')).toBe('{}');
    expect(storedProperties({ properties: { a: 1 } }, null, () => '{"a":1}')).toBe('{"a":1}');
  });

  it("merges top-level sets into the properties' own, the sent member replacing the own one, no key written twice (PostHog's merge)", () => {
    const text = stored('{"properties": {"n": 1.50, "$set": {"a": 1, "b": 2}}, "$set": {"b": 12345678901234567890}, "$set_once": { }}');
    expect(text).toBe('{"n":1.50,"$set":{"a":1,"b":12345678901234567890},"$set_once":{}}');
    expect(JSON.parse(stored('{"properties": {"$set": "x"}, "$set": {"a": 1}}'))).toEqual({ $set: { a: 1 } });
    expect(stored('{"$set_once": {"a": 1}, "$set": null}')).toBe('{"$set_once":{"a":1}}');
    expect(stored('{"properties": {"k": "\\"}"}, "$set": {"a": {"b": [1, {"c": 2}]}}}')).toBe('{"k":"\\"}","$set":{"a":{"b": [1, {"c": 2}]}}}');
  });
});

describe('oversize', () => {
  it('measures properties that may pass the limit as compact JSON, and answers their size only when they do', () => {
    const big = JSON.stringify({ blob: 'x'.repeat(MAX_EVENT_PROPERTIES_BYTES) });
    expect(oversize(big, () => big)).toBe(big.length);
    expect(oversize('{"a": 1}', () => '{"a":1}')).toBeNull();
    const spaced = `{"a": "${'x'.repeat(MAX_EVENT_PROPERTIES_BYTES - 20)}"${' '.repeat(100)}}`;
    expect(oversize(spaced, () => JSON.stringify(JSON.parse(spaced)))).toBeNull();
    expect(oversize(JSON.stringify({ k: 'é'.repeat(MAX_EVENT_PROPERTIES_BYTES / 2) }), () => JSON.stringify({ k: 'é'.repeat(MAX_EVENT_PROPERTIES_BYTES / 2) }))).toBe(MAX_EVENT_PROPERTIES_BYTES + 8);
  });
});
