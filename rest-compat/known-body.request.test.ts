import { describe, expect, it } from 'vitest';
import { KnownBodyRequest } from './known-body.request.js';

describe('KnownBodyRequest', () => {
  it('answers its text as it is, with a body present for readers that check for one first', async () => {
    const text = '{"data": {"id": "é"}}';
    const request = new KnownBodyRequest('http://rest/api/x/', 'PATCH', { 'content-type': 'application/json' }, text);
    expect(request.method).toBe('PATCH');
    expect(request.body).not.toBeNull();
    expect(await request.text()).toBe(text);
    expect(await request.json()).toEqual({ data: { id: 'é' } });
  });
});
