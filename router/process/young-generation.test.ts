import { describe, expect, it } from 'vitest';
import { withYoungGeneration, YOUNG_GENERATION_FLAG } from './young-generation.js';

describe(withYoungGeneration.name, () => {
  it("adds the young generation's size to the primary's arguments", () => {
    expect(withYoungGeneration([], undefined)).toEqual([YOUNG_GENERATION_FLAG]);
    expect(withYoungGeneration(['--enable-source-maps'], '--max-old-space-size=4096')).toEqual(['--enable-source-maps', YOUNG_GENERATION_FLAG]);
  });

  it("leaves an operator's own size, as an argument or in NODE_OPTIONS, in any spelling V8 takes", () => {
    expect(withYoungGeneration(['--max-semi-space-size=16'], undefined)).toEqual(['--max-semi-space-size=16']);
    expect(withYoungGeneration(['-max-semi-space-size=16'], undefined)).toEqual(['-max-semi-space-size=16']);
    expect(withYoungGeneration(['--min-semi-space-size=64'], undefined)).toEqual(['--min-semi-space-size=64']);
    expect(withYoungGeneration([], '--enable-source-maps  --max_semi_space_size=8')).toEqual([]);
  });

  it('does not take a flag that only begins alike for the size', () => {
    expect(withYoungGeneration(['--max-semi-space-sizes=1'], undefined)).toEqual(['--max-semi-space-sizes=1', YOUNG_GENERATION_FLAG]);
  });
});
