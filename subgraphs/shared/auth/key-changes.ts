/**
 * Where a personal API key that no longer means what it meant is announced (revoked, rolled to a
 * new value, given other scopes): routers drop what they cached of it, so the change holds at once
 * in every process rather than when their cache entry expires.
 */
export const KEY_CHANGES_TOPIC = 'personal_api_keys.changed';

export interface KeyChange {
  /** SHA-256 of the key's value, in hex: what is stored of it, and what routers cache it under. */
  hash: string;
}

/** The announcement for a key stored as `sha256$<hex>` (see `tokenHash`). */
export function keyChange(secureValue: string): KeyChange {
  return { hash: secureValue.replace(/^sha256\$/, '') };
}
