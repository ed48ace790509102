import { describe, expect, it } from 'vitest';
import { exceedsDepth, isUuid, jsonProblem, jsonSize, mayHoldUnstorable, present, replaceUnstorable } from './validation.js';

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

  it('asks about shape only: a string PostgreSQL could not store neither hides a value too deep nor counts as one', () => {
    const deep = { b: { c: { d: {} } } };
    expect(exceedsDepth({ a: 'x\u0000', deep }, 3)).toBe(true);
    expect(exceedsDepth({ deep, a: 'x\ud800' }, 3)).toBe(true);
    expect(exceedsDepth({ a: 'x\u0000', b: ['\ud800'] }, 3)).toBe(false);
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

describe('unstorable characters', () => {
  it('jsonProblem finds unpaired surrogates, and lets pairs be', () => {
    expect(jsonProblem({ a: 'x\ud800y' })).toBe('unpaired_surrogate');
    expect(jsonProblem({ ['\udc00']: 1 })).toBe('unpaired_surrogate');
    expect(jsonProblem({ a: 'smile \ud83d\ude00' })).toBeNull();
  });

  it('replaceUnstorable puts U+FFFD for NUL characters and unpaired surrogates, in strings and keys, in place', () => {
    const value = { a: ['x\u0000', 'fine', { ['k\ud800']: 'v\udc00' }], b: '\ud83d\ude00' };
    expect(replaceUnstorable(value)).toBe(value);
    expect(value).toEqual({ a: ['x\ufffd', 'fine', { ['k\ufffd']: 'v\ufffd' }], b: '\ud83d\ude00' });
    expect(jsonProblem(value)).toBeNull();
    expect(replaceUnstorable('a\u0000')).toBe('a\ufffd');
  });

  it('mayHoldUnstorable spots the escapes in JSON text', () => {
    expect(mayHoldUnstorable(JSON.stringify({ a: 'x\u0000' }))).toBe(true);
    expect(mayHoldUnstorable('{"a":"\\ud800"}')).toBe(true);
    expect(mayHoldUnstorable(JSON.stringify({ a: 'plain \ud83d\ude00 é' }))).toBe(false);
  });
});

describe(present.name, () => {
  it('passes a value, falsy ones too, and refuses an absent one as required and a null one as null', () => {
    expect(present('', 'name')).toBe('');
    expect(present(0, 'limit')).toBe(0);
    expect(() => present(undefined, 'name')).toThrowError(expect.objectContaining({ extensions: expect.objectContaining({ code: 'required', attr: 'name' }) }));
    expect(() => present(null, 'name')).toThrowError(expect.objectContaining({ extensions: expect.objectContaining({ code: 'null', attr: 'name' }) }));
  });
});
