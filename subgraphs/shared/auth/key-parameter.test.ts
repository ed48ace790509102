import { describe, expect, it } from 'vitest';
import { bearerCredential, isBearer, loggableUrl } from './key-parameter.js';

describe(loggableUrl.name, () => {
  it('replaces a personal key in the query string, wherever it stands, and leaves other URLs alone', () => {
    expect(loggableUrl('/api/x/?personal_api_key=phx_secret')).toBe('/api/x/?personal_api_key=[redacted]');
    expect(loggableUrl('/api/x/?limit=2&personal_api_key=phx_secret&offset=4')).toBe('/api/x/?limit=2&personal_api_key=[redacted]&offset=4');
    expect(loggableUrl('/api/x/?limit=2')).toBe('/api/x/?limit=2');
    expect(loggableUrl(undefined)).toBeUndefined();
  });
});

describe(bearerCredential.name, () => {
  it('reads the key of a Bearer header, refuses a Bearer header without exactly one, and finds none in another scheme', () => {
    expect(bearerCredential('Bearer phx_abc')).toBe('phx_abc');
    expect(bearerCredential('bearer   phx_abc  ')).toBe('phx_abc');
    expect(bearerCredential('Bearer')).toBeNull();
    expect(bearerCredential('Bearer phx_a phx_b')).toBeNull();
    expect(bearerCredential('  Bearer phx_abc')).toBeNull();
    expect(bearerCredential('Basic dXNlcjpwYXNz')).toBeUndefined();
    expect(bearerCredential('Bearerphx_abc')).toBeUndefined();
    expect(isBearer('Bearer')).toBe(true);
    expect(isBearer('Basic x')).toBe(false);
  });
});
