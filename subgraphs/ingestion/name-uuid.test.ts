import { describe, expect, it } from 'vitest';
import { uuidV5 } from './name-uuid.js';

describe('uuidV5', () => {
  it("matches RFC 9562's example (www.example.com in the DNS namespace)", () => {
    expect(uuidV5('www.example.com', '6ba7b810-9dad-11d1-80b4-00c04fd430c8')).toBe('2ed6657d-e927-568b-95e1-2665a8aea6a2');
  });

  it('gives the same id for the same name, another for another name or namespace', () => {
    const namespace = '932979b4-65c3-4424-8467-0b66ec27bc22';
    expect(uuidV5('1:user', namespace)).toBe(uuidV5('1:user', namespace));
    expect(uuidV5('1:user', namespace)).not.toBe(uuidV5('2:user', namespace));
    expect(uuidV5('1:user', namespace)).not.toBe(uuidV5('1:user', '6ba7b810-9dad-11d1-80b4-00c04fd430c8'));
  });
});
