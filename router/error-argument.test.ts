import { describe, expect, it } from 'vitest';
import { argumentOf } from './error-argument.js';

describe(argumentOf.name, () => {
  const query = `mutation ($h: Boolean, $n: Int) {
  ingest_batch(historical_migration: $h, batch: []) { status }
  update(input: {limit: $n, scope: planet}) { id }
}`;

  it('names the argument a variable was given for, not the variable', () => {
    expect(argumentOf({ message: 'Variable "$h" got invalid value "maybe"; Boolean cannot represent a non boolean value: "maybe"', locations: [{ line: 1, column: 11 }] }, query)).toBe('historical_migration');
    expect(argumentOf({ message: 'Variable "$n" got invalid value "x"; Int cannot represent non-integer value: "x"', locations: [{ line: 1, column: 24 }] }, query)).toBe('limit');
  });

  it('names the innermost argument or input field holding a refused literal', () => {
    expect(argumentOf({ message: 'Value "planet" does not exist in "Scope" enum.', locations: [{ line: 3, column: 36 }] }, query)).toBe('scope');
  });

  it('names nothing without the text, a location, or an argument there', () => {
    const error = { message: 'Value "planet" does not exist in "Scope" enum.', locations: [{ line: 3, column: 36 }] };
    expect(argumentOf(error, undefined)).toBeNull();
    expect(argumentOf({ message: error.message }, query)).toBeNull();
    expect(argumentOf({ ...error, locations: [{ line: 1, column: 1 }] }, query)).toBeNull();
    expect(argumentOf(error, '{ unparsable')).toBeNull();
  });
});
