import { describe, expect, it } from 'vitest';
import { copyRows, copyText } from './copy.js';

describe('COPY text', () => {
  it('escapes backslashes, tabs and line ends, and leaves other text as it is', () => {
    expect(copyText('a\tb\nc\rd\\e')).toBe('a\\tb\\nc\\rd\\\\e');
    expect(copyText('{"k": "日本語 🎉 \\"q\\""}')).toBe('{"k": "日本語 🎉 \\\\"q\\\\""}');
    expect(copyText('plain')).toBe('plain');
  });

  it('writes rows as tab-separated lines in UTF-8, empty fields included', () => {
    const bytes = copyRows([
      ['1', '', 'é\t🎉'],
      ['2', 'x\\y', '{}'],
    ]);
    expect(bytes.toString('utf8')).toBe('1\t\té\\t🎉\n2\tx\\\\y\t{}\n');
  });
});
