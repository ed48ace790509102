import { describe, expect, it } from 'vitest';
import { isoformat, manifestKey, objectKey, renderPrefix } from './s3.key.js';

const start = new Date('2026-01-05T10:00:00Z');
const end = new Date('2026-01-05T11:00:00Z');

describe('renderPrefix', () => {
  it("fills PostHog's template variables from the interval's end", () => {
    expect(renderPrefix('exports/{year}/{month}/{day}/{hour}:{minute}:{second}/{table}', 'events', start, end)).toBe('exports/2026/01/05/11:00:00/events');
    expect(renderPrefix('{data_interval_start}_{data_interval_end}', 'persons', start, end)).toBe('2026-01-05T10:00:00+00:00_2026-01-05T11:00:00+00:00');
  });

  it('reads braces as Python does: doubled ones are braces, an unknown name leaves the prefix as it is', () => {
    expect(renderPrefix('a{{b}}/{year}', 'events', start, end)).toBe('a{b}/2026');
    expect(renderPrefix('x/{nope}/{year}', 'events', start, end)).toBe('x/{nope}/{year}');
    expect(renderPrefix('x/{year', 'events', start, end)).toBe('x/{year');
    expect(renderPrefix('x/}', 'events', start, end)).toBe('x/}');
  });
});

describe('objectKey', () => {
  const parts = { prefix: 'p/{table}', model: 'events', start, end, extension: 'jsonl.gz' };
  it('joins the prefix and the interval as posixpath.join does, without a leading slash', () => {
    expect(objectKey(parts, null)).toBe('p/events/2026-01-05T10:00:00+00:00-2026-01-05T11:00:00+00:00.jsonl.gz');
    expect(objectKey({ ...parts, prefix: '/p/' }, 3)).toBe('p/2026-01-05T10:00:00+00:00-2026-01-05T11:00:00+00:00-3.jsonl.gz');
    expect(objectKey({ ...parts, prefix: '' }, null)).toBe('2026-01-05T10:00:00+00:00-2026-01-05T11:00:00+00:00.jsonl.gz');
    expect(manifestKey(parts)).toBe('p/events/2026-01-05T10:00:00+00:00-2026-01-05T11:00:00+00:00_manifest.json');
  });

  it('writes times as isoformat() does, microseconds only when there are some', () => {
    expect(isoformat(new Date('2026-01-05T10:00:00.250Z'))).toBe('2026-01-05T10:00:00.250000+00:00');
  });
});
