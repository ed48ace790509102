import type { EntityManager } from '@mikro-orm/postgresql';

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
export async function lockForCodeCheck(em: EntityManager, userId: number, window: { since: Date; limit: number }): Promise<CodeCheckState | null> {
  // The lock first, in a statement of its own: a statement that waited for the lock still reads
  // what it saw when it began, and would miss the failures its predecessor just recorded.
  const locked = await em.execute('select 1 from accounts.users where id = ? and is_active for update', [userId]);
  if (locked.length === 0) return null;
  const [row] = await em.execute<{ device_id: number | null; secret_sealed: string | null; last_used_step: string | null; recent_failures: Date[] }[]>(
    `select d.id as device_id, d.secret_sealed, d.last_used_step,
            array(select f.created_at from accounts.two_factor_failures f
                   where f.user_id = u.id and f.created_at > ? order by f.created_at desc limit ?) as recent_failures
       from accounts.users u
       left join accounts.totp_devices d on d.user_id = u.id and d.confirmed
      where u.id = ?`,
    [window.since, window.limit, userId],
  );
  return {
    device: row.device_id === null ? null : { id: row.device_id, secret_sealed: row.secret_sealed!, last_used_step: row.last_used_step === null ? null : Number(row.last_used_step) },
    recent_failures: row.recent_failures.map((at) => new Date(at)),
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

export async function recordFailure(em: EntityManager, userId: number): Promise<void> {
  await em.execute('insert into accounts.two_factor_failures (user_id, created_at) values (?, now())', [userId]);
}
