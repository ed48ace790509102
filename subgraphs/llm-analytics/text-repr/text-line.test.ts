import { describe, expect, it } from 'vitest';
import { codePointLength, utf8Base64 } from './code-points.js';
import { lineLength, TruncationMarker } from './text-line.js';

describe('TruncationMarker', () => {
  const texts = ['', 'a', 'ab', 'abc', 'abcd', 'é', 'naïve café', '😀', 'a\uD800b', '\uDC00', 'x'.repeat(100_001), '日本語のテキスト'.repeat(333)];

  it.each(texts.map((text) => [text.slice(0, 12), text] as const))('writes the marker its length promises (%s…)', (_label, text) => {
    const marker = new TruncationMarker(text, 1234);
    const written = String(marker);
    expect(written).toBe(`<<<TRUNCATED|${utf8Base64(text)}|1234>>>`);
    expect(marker.length).toBe(written.length);
    expect(lineLength(marker)).toBe(codePointLength(written));
    expect(written).not.toContain('\n');
  });

  it('is written by a join and by a template literal', () => {
    const marker = new TruncationMarker('hi', 2);
    expect(['a', marker, 'b'].join('\n')).toBe('a\n<<<TRUNCATED|aGk=|2>>>\nb');
    expect(`L1: ${marker}`).toBe('L1: <<<TRUNCATED|aGk=|2>>>');
  });
});
