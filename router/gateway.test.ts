import { describe, expect, it } from 'vitest';
import { ActorSigner, type Actor } from '../subgraphs/shared/auth/actor.js';
import { AUTH_CACHE_MS } from './auth.js';
import { recentSignatures } from './gateway.js';

describe('recentSignatures', () => {
  const signer = new ActorSigner('a secret key of enough length for the test');
  const actor = (): Actor => ({ kind: 'personal_api_key', user: { id: 1, uuid: 'u' }, key_id: 'k', scopes: ['*'], organizations: { o: 15 } });

  it('reuses the signature of the same actor object while the authenticator keeps it, then signs anew', () => {
    let now = 1_800_000_000_000;
    const sign = recentSignatures(signer, () => now);
    const kept = actor();
    const first = sign(kept);
    expect(signer.verify(first.header, now)).toEqual(kept);
    expect(first.signedAt).toBe(now);
    now += AUTH_CACHE_MS - 1;
    expect(sign(kept)).toBe(first);
    now += 1001;
    const later = sign(kept);
    expect(later.signedAt).toBe(now);
    expect(later.header).not.toBe(first.header);
    expect(signer.verify(later.header, now)).toEqual(kept);
  });

  it('signs another actor object on its own', () => {
    const now = 1_800_000_000_000;
    const sign = recentSignatures(signer, () => now);
    const one = actor();
    const other = { ...actor(), scopes: ['project:read'] };
    expect(sign(one)).not.toBe(sign(other));
    expect(signer.verify(sign(other).header, now)).toEqual(other);
  });
});
