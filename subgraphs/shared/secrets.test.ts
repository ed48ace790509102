import { describe, expect, it } from 'vitest';
import { constantTimeEqual, generateToken, maskSecret } from './crypto.js';
import { SecretBox, tokenHash } from './secrets.js';

describe(SecretBox.name, () => {
  const box = new SecretBox('first-secret-key-long-enough-0000000000');

  it('seals so that only the same SECRET_KEY opens', () => {
    const sealed = box.seal('sk-live-123');
    expect(sealed).not.toContain('sk-live-123');
    expect(box.seal('sk-live-123')).not.toBe(sealed);
    expect(new SecretBox('first-secret-key-long-enough-0000000000').open(sealed)).toBe('sk-live-123');
    expect(() => new SecretBox('other-secret-key-long-enough-000000000').open(sealed)).toThrow();
  });

  it('opens a value again from memory, and still refuses a tampered copy of it', () => {
    const sealed = box.seal('phc_token');
    expect(box.open(sealed)).toBe('phc_token');
    expect(box.open(sealed)).toBe('phc_token');
    const [v, iv, tag, data] = sealed.split(':');
    const flipped = `${data!.startsWith('A') ? 'B' : 'A'}${data!.slice(1)}`;
    expect(() => box.open([v, iv, tag, flipped].join(':'))).toThrow();
    expect(() => new SecretBox('other-secret-key-long-enough-000000000').open(sealed)).toThrow();
  });

  it('refuses a tampered ciphertext', () => {
    const [v, iv, tag, data] = box.seal('value').split(':');
    expect(() => box.open([v, iv, tag, `${data}A`].join(':'))).toThrow();
  });
});

describe('tokens', () => {
  it('generates prefixed base62 tokens with at least 160 bits', () => {
    const token = generateToken('phx_');
    expect(token).toMatch(/^phx_[0-9A-Za-z]{27,28}$/);
    expect(new Set(Array.from({ length: 200 }, () => generateToken('phc_'))).size).toBe(200);
  });

  it('masks first four and last four, **** when short', () => {
    expect(maskSecret('phx_abcdefghijkl')).toBe('phx_...ijkl');
    expect(maskSecret('12345678')).toBe('****');
  });

  it('hashes as sha256$hex and compares in constant time', () => {
    expect(tokenHash('phx_x')).toMatch(/^sha256\$[0-9a-f]{64}$/);
    expect(constantTimeEqual('abc', 'abc')).toBe(true);
    expect(constantTimeEqual('abc', 'abd')).toBe(false);
    expect(constantTimeEqual('abc', 'abcd')).toBe(false);
  });
});
