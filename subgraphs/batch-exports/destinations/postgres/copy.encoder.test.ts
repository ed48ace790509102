import { describe, expect, it } from 'vitest';
import { copyEncoder } from './copy.encoder.js';

describe('copyEncoder', () => {
  const columns = [
    { name: 'event', type: 'String' as const },
    { name: 'properties', type: 'JSON' as const },
    { name: 'set', type: 'String' as const },
    { name: 'elements', type: 'String' as const },
    { name: 'ok', type: 'Boolean' as const },
  ];
  const encode = copyEncoder(columns, [0, 1, 2, 3, 4], ['other', 'jsonb', 'jsonb', 'jsonb', 'other']);

  it('escapes the COPY text format and writes null as \\N', () => {
    expect(encode([['a\tb\nc\\d', '{"x": 1}', null, null, true]])).toBe('a\\tb\\nc\\\\d\t{"x": 1}\t\\N\t\\N\tt\n');
  });

  it('writes a JSON object held in text as it is into a jsonb column, and other text as a JSON string', () => {
    expect(encode([['e', '{}', '{"plan": "pro"}', 'div:nth-child="1"', false]])).toBe('e\t{}\t{"plan": "pro"}\t"div:nth-child=\\\\"1\\\\""\tf\n');
    expect(encode([['e', '{}', '{not json', '[1', false]])).toBe('e\t{}\t"{not json"\t"[1"\tf\n');
  });
});
