import { describe, expect, it } from 'vitest';
import { loggableUrl } from './key-parameter.js';

describe(loggableUrl.name, () => {
  it('replaces a personal key in the query string, wherever it stands, and leaves other URLs alone', () => {
    expect(loggableUrl('/api/x/?personal_api_key=phx_secret')).toBe('/api/x/?personal_api_key=[redacted]');
    expect(loggableUrl('/api/x/?limit=2&personal_api_key=phx_secret&offset=4')).toBe('/api/x/?limit=2&personal_api_key=[redacted]&offset=4');
    expect(loggableUrl('/api/x/?limit=2')).toBe('/api/x/?limit=2');
    expect(loggableUrl(undefined)).toBeUndefined();
  });
});
