/**
 * Where a personal API key that no longer means what it meant is announced (revoked, rolled to a
 * new value, given other scopes), or every key of a user whose access changed (a membership's
 * level changed or removed): routers drop what they cached of them, so the change holds at once in
 * every process rather than when their cache entry expires.
 */
export const KEY_CHANGES_TOPIC = 'personal_api_keys.changed';

export type KeyChange =
  /** SHA-256 of the key's value, in hex: what is stored of it, and what routers cache it under. */
  | { hash: string }
  /** Every key of this user (the id the actor carries). */
  | { user_id: number };

/** The announcement for a key stored as `sha256$<hex>` (see `tokenHash`). */
export function keyChange(secureValue: string): KeyChange {
  return { hash: secureValue.replace(/^sha256\$/, '') };
}

/** The announcement for every key of a user. */
export function userKeysChange(userId: number): KeyChange {
  return { user_id: userId };
}
