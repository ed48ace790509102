import { randomInt } from 'node:crypto';
import { constantTimeEqual, deriveKey, hmacBase64url } from '../../shared/crypto.js';

export const BACKUP_CODE_COUNT = 10;
/** No 0/o, 1/l/i: codes are read off paper and typed. */
const ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const HALF = 5;

/** Ten new codes such as `k7m2p-x9q4r` (about 49 bits each). */
export function newBackupCodes(): string[] {
  const half = () => Array.from({ length: HALF }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
  return Array.from({ length: BACKUP_CODE_COUNT }, () => `${half()}-${half()}`);
}

/** What a user may type for a code: any case, with or without the dash and spaces. */
export function normalizeBackupCode(code: string): string {
  return code.toLowerCase().replace(/[\s-]/g, '');
}

/** The form the status shows: everything but the last two characters hidden. */
export function maskBackupCode(code: string): string {
  return code.replace(/[a-z0-9](?=[a-z0-9-]{2,})/g, '*');
}

/**
 * Codes are short, so they are hashed with a key derived from SECRET_KEY and bound to the user:
 * a stolen table alone does not let anyone test guesses offline.
 */
export class BackupCodeHasher {
  private readonly key: Buffer;

  constructor(secretKey: string) {
    this.key = deriveKey(secretKey, 'two-factor-backup-codes');
  }

  hash(userId: number, code: string): string {
    return hmacBase64url(this.key, `${userId}:${normalizeBackupCode(code)}`);
  }

  /** Which of the stored hashes (if any) the code matches, each compared in constant time. */
  match(userId: number, code: string, stored: string[]): number {
    const hash = this.hash(userId, code);
    let found = -1;
    stored.forEach((candidate, index) => {
      if (constantTimeEqual(candidate, hash) && found < 0) found = index;
    });
    return found;
  }
}
