import { describe, expect, it } from 'vitest';
import { ACTOR_TTL_SECONDS, ActorSigner, type Actor } from './actor.js';

const actor: Actor = { kind: 'personal_api_key', user: { id: 7, uuid: 'u' }, key_id: 'k', scopes: ['project:read'], organizations: { o: 8 } };

describe(ActorSigner.name, () => {
  const signer = new ActorSigner('a-secret-key-that-is-long-enough-000000');

  it('round-trips an actor', () => {
    expect(signer.verify(signer.sign(actor))).toEqual(actor);
  });

  it('refuses a header signed with another SECRET_KEY', () => {
    expect(new ActorSigner('another-secret-key-that-is-long-enough-1').verify(signer.sign(actor))).toBeNull();
  });

  it('refuses a tampered payload', () => {
    const [version, payload, signature] = signer.sign(actor).split('.');
    const forged = Buffer.from(Buffer.from(payload!, 'base64url').toString().replace('"project:read"', '"*"')).toString('base64url');
    expect(signer.verify(`${version}.${forged}.${signature}`)).toBeNull();
  });

  it('refuses an expired header, and missing or malformed ones', () => {
    const now = Date.now();
    expect(signer.verify(signer.sign(actor, now), now + (ACTOR_TTL_SECONDS + 1) * 1000)).toBeNull();
    for (const header of [undefined, null, '', 'v1', 'v2.a.b', 'v1..x', 'v1.e30.']) expect(signer.verify(header)).toBeNull();
  });
});
