import type { EntityManager } from '@mikro-orm/postgresql';
import { ThrottledError } from '../../shared/errors.js';
import type { CredentialKind } from './credential-failure.entity.js';

/** Wrong attempts of one kind allowed in the window before further attempts are refused with 429. */
export const MAX_FAILURES = 5;
export const FAILURE_WINDOW_MS = 15 * 60 * 1000;

/** The newest failures of a kind within the window (at most MAX_FAILURES), newest first. */
export async function recentFailures(em: EntityManager, userId: number, kind: CredentialKind): Promise<Date[]> {
  const rows = await em.execute<{ created_at: Date }[]>(
    'select created_at from accounts.credential_failures where user_id = ? and kind = ? and created_at > ? order by created_at desc limit ?',
    [userId, kind, new Date(Date.now() - FAILURE_WINDOW_MS), MAX_FAILURES],
  );
  return rows.map((row) => new Date(row.created_at));
}

/** 429 while MAX_FAILURES failures are within the window, until the oldest of them leaves it. */
export function refuseWhileLocked(recent: Date[]): void {
  if (recent.length < MAX_FAILURES) return;
  const freeAt = recent[MAX_FAILURES - 1]!.getTime() + FAILURE_WINDOW_MS;
  throw new ThrottledError(Math.max(1, Math.ceil((freeAt - Date.now()) / 1000)));
}

export async function recordFailure(em: EntityManager, userId: number, kind: CredentialKind): Promise<void> {
  await em.execute('insert into accounts.credential_failures (user_id, kind, created_at) values (?, ?, now())', [userId, kind]);
}
