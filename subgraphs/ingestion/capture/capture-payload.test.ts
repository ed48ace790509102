import { describe, expect, it } from 'vitest';
import { readPayload } from './capture-payload.js';
import { refusal as refusalOf } from './refusal.fixture.js';

const refusal = (text: string) => refusalOf(() => readPayload(text));

describe('readPayload', () => {
  it("reads PostHog's three shapes, keeping each event's properties as sent", () => {
    const envelope = '{"api_key": "phc_a", "historical_migration": true, "sent_at": "2026-01-01T00:00:00Z", "batch": [{"event": "x", "properties": {"n": 1.50}}, {"event": "y"}]}';
    expect(readPayload(envelope)).toEqual({
      api_key: 'phc_a',
      historical_migration: true,
      sent_at: '2026-01-01T00:00:00Z',
      batch: [{ event: 'x', properties: { n: 1.5 } }, { event: 'y' }],
      sent_texts: [{ properties: '{"n": 1.50}' }, {}],
    });
    expect(readPayload('{"token": "phc_b", "batch": []}').api_key).toBe('phc_b');
    expect(readPayload('[{"event": "x", "properties": {"big": 12345678901234567890}}]')).toMatchObject({ sent_texts: [{ properties: '{"big": 12345678901234567890}' }] });
    expect(readPayload('{"event": "x", "api_key": "phc_c", "properties" : {} }')).toMatchObject({ batch: [{ event: 'x', api_key: 'phc_c' }], sent_texts: [{ properties: '{}' }] });
  });

  it('answers 400 for text that is no JSON, nothing, or neither an object nor a list', () => {
    expect(refusal('{"batch": [')).toMatchObject({ status: 400, code: 'parse_error' });
    expect(refusal('  ')).toMatchObject({ status: 400, code: 'no_data' });
    expect(refusal('"events"')).toMatchObject({ status: 400, code: 'invalid_input' });
  });

  it('answers 400 for envelope fields of the wrong type', () => {
    expect(refusal('{"historical_migration": "yes", "batch": []}')).toMatchObject({ attr: 'historical_migration', code: 'invalid_input' });
    expect(refusal('{"api_key": 12, "batch": []}')).toMatchObject({ attr: 'api_key' });
    expect(refusal('{"sent_at": false, "batch": []}')).toMatchObject({ attr: 'sent_at' });
  });

  it('replaces NUL characters and unpaired surrogates, which PostgreSQL cannot store, and then stores the cleaned properties, not the text', () => {
    const input = readPayload('{"batch": [{"event": "a\\u0000b", "properties": {"k\\ud800": "v"}}]}');
    expect(input.batch).toEqual([{ event: 'a\ufffdb', properties: { ['k\ufffd']: 'v' } }]);
    expect(input.sent_texts).toBeUndefined();
  });
});
