import type { EntityManager } from '@mikro-orm/postgresql';

import { MAX_FAILURES, recentFailures } from '../users/credential-lockout.js';

/** What checking a code needs to know about an account, read with its row locked. */
export interface CodeCheckState {
  device: { id: number; secret_sealed: string; last_used_step: number | null } | null;
  /** The newest wrong codes within the window (at most as many as lock the account out). */
  recent_failures: Date[];
}

/**
 * The hot path of `validate_2fa` in plain statements: lock the account, read everything a check
 * needs at once, then one write. Through the ORM it took five queries and several times the time.
 * Returns null when the account is not active.
 */
export async function lockForCodeCheck(em: EntityManager, userId: number): Promise<CodeCheckState | null> {
  // The lock first, in a statement of its own: a statement that waited for the lock still reads
  // what it saw when it began, and would miss the failures its predecessor just recorded.
  const locked = await em.execute('select 1 from accounts.users where id = ? and is_active for update', [userId]);
  if (locked.length === 0) return null;
  const [[device], recent] = await Promise.all([
    em.execute<{ id: number; secret_sealed: string; last_used_step: string | null }[]>(
      'select id, secret_sealed, last_used_step from accounts.totp_devices where user_id = ? and confirmed',
      [userId],
    ),
    recentFailures(em, userId, 'code'),
  ]);
  return {
    device: device ? { id: device.id, secret_sealed: device.secret_sealed, last_used_step: device.last_used_step === null ? null : Number(device.last_used_step) } : null,
    recent_failures: recent.slice(0, MAX_FAILURES),
  };
}

export async function recordAcceptedStep(em: EntityManager, deviceId: number, step: number): Promise<void> {
  await em.execute('update accounts.totp_devices set last_used_step = ? where id = ?', [step, deviceId]);
}

export async function unusedBackupCodes(em: EntityManager, userId: number): Promise<{ id: number; code_hash: string }[]> {
  return em.execute('select id, code_hash from accounts.two_factor_backup_codes where user_id = ? and used_at is null order by id', [userId]);
}

export async function spendBackupCode(em: EntityManager, id: number): Promise<void> {
  await em.execute('update accounts.two_factor_backup_codes set used_at = now() where id = ?', [id]);
}
