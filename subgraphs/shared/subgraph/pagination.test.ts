import { describe, expect, it } from 'vitest';
import { ValidationError } from '../errors.js';
import { MAX_PAGE_SIZE, pageWindow, toPage } from './pagination.js';

describe('pageWindow', () => {
  it('defaults to 100 from 0 and caps the limit', () => {
    expect(pageWindow({})).toEqual({ limit: 100, offset: 0 });
    expect(pageWindow({ limit: 5000, offset: 3 })).toEqual({ limit: MAX_PAGE_SIZE, offset: 3 });
  });

  it('refuses a non-positive limit and a negative offset with attr', () => {
    expect(() => pageWindow({ limit: 0 })).toThrow(ValidationError);
    expect(() => pageWindow({ offset: -1 })).toThrowError(expect.objectContaining({ extensions: expect.objectContaining({ attr: 'offset' }) }));
  });
});

describe('toPage', () => {
  it('links the neighbouring pages, dropping offset=0 from previous as DRF does', () => {
    expect(toPage([1, 2], 5, { limit: 2, offset: 0 })).toEqual({ count: 5, next: '?limit=2&offset=2', previous: null, results: [1, 2] });
    expect(toPage([3, 4], 5, { limit: 2, offset: 2 })).toMatchObject({ next: '?limit=2&offset=4', previous: '?limit=2' });
    expect(toPage([5], 5, { limit: 2, offset: 4 })).toMatchObject({ next: null, previous: '?limit=2&offset=2' });
    expect(toPage([], 0, { limit: 100, offset: 0 })).toMatchObject({ next: null, previous: null });
  });
});
