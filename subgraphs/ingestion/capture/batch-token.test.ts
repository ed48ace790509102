import { describe, expect, it } from 'vitest';
import { batchToken } from './batch-token.js';
import { refusal as refusalOf } from './refusal.fixture.js';

const refusal = (envelope: string | null, events: unknown[] = []) => refusalOf(() => batchToken(envelope, events));

describe('batchToken', () => {
  it("takes the envelope's key, trimmed, over the events' own", () => {
    expect(batchToken(' phc_envelope ', [{ api_key: 'phc_other' }])).toBe('phc_envelope');
  });

  it("takes the events' key (api_key, token, $token or properties.token) when the envelope has none", () => {
    expect(batchToken(null, [{ event: 'x' }, { token: 'phc_a' }, { properties: { token: 'phc_a' } }])).toBe('phc_a');
    expect(batchToken(undefined, [{ $token: 'phc_b' }])).toBe('phc_b');
  });

  it('refuses events that carry different keys', () => {
    expect(refusal(null, [{ api_key: 'phc_a' }, { api_key: 'phc_b' }])).toMatchObject({ status: 401, code: 'inconsistent_api_key', attr: 'api_key' });
  });

  it('refuses a batch without a key (401 missing_api_key)', () => {
    expect(refusal(null, [{ event: 'x' }])).toMatchObject({ status: 401, code: 'missing_api_key', attr: 'api_key' });
    expect(refusal('   ')).toMatchObject({ code: 'missing_api_key' });
  });

  it.each([
    ['a personal API key', 'phx_personal', 'personal_api_key'],
    ['a key over 64 characters', `phc_${'a'.repeat(61)}`, 'too_long'],
    ['a key that is not ASCII', 'phc_clé', 'not_ascii'],
  ])('refuses %s as invalid', (_case, token, reason) => {
    const problem = refusal(token);
    expect(problem).toMatchObject({ status: 401, code: 'invalid_api_key' });
    expect(problem.message).toContain(reason);
  });
});
