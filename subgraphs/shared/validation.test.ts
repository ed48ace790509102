import { describe, expect, it } from 'vitest';
import { exceedsDepth, isUuid, jsonProblem, jsonSize } from './validation.js';

describe(exceedsDepth.name, () => {
  it('counts object and array levels', () => {
    expect(exceedsDepth({ a: [1, { b: 2 }] }, 3)).toBe(false);
    expect(exceedsDepth({ a: [1, { b: {} }] }, 3)).toBe(true);
    expect(exceedsDepth('text', 0)).toBe(false);
  });

  it('checks a value nested a hundred thousand levels deep without overflowing', () => {
    let value: unknown = [];
    for (let i = 0; i < 100_000; i++) value = [value];
    expect(exceedsDepth(value)).toBe(true);
  });
});

describe('isUuid and jsonSize', () => {
  it('recognise UUIDs and measure JSON bytes', () => {
    expect(isUuid('0b8c9f3e-6d2a-4f7e-9a1b-2c3d4e5f6a7b')).toBe(true);
    expect(isUuid('0b8c9f3e')).toBe(false);
    expect(jsonSize({ a: 'é' })).toBe(Buffer.byteLength('{"a":"é"}'));
  });
});

describe('jsonProblem', () => {
  it('finds NUL characters in strings and keys', () => {
    expect(jsonProblem({ a: ['x\u0000'] })).toBe('nul_character');
    expect(jsonProblem({ ['k\u0000']: 1 })).toBe('nul_character');
    expect(jsonProblem({ a: '\\u0000 written out' })).toBeNull();
  });
});
