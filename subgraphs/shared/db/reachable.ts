import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';

/** A system user's ids, as /etc/passwd gives them. */
export interface SystemUser {
  uid: number;
  gid: number;
}

/** The `postgres` system user, or null when it does not exist yet (the embedded server makes it). */
export function postgresUser(passwd = '/etc/passwd'): SystemUser | null {
  if (!existsSync(passwd)) return null;
  const line = readFileSync(passwd, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('postgres:'));
  if (!line) return null;
  const [, , uid, gid] = line.split(':');
  return { uid: Number(uid), gid: Number(gid) };
}

/**
 * The topmost existing directory above `path` that `user` may not enter (no execute permission
 * for it as owner, group or other), or null when it reaches `path`. A user that does not exist yet
 * is another user in every directory's eyes: only "other" counts for it.
 */
export function unreachableAncestor(path: string, user: SystemUser | null): string | null {
  const ancestors: string[] = [];
  for (let current = dirname(path); ; current = dirname(current)) {
    ancestors.unshift(current);
    if (dirname(current) === current) break;
  }
  for (const directory of ancestors) {
    if (!existsSync(directory)) break;
    if (!enterable(statSync(directory), user)) return directory;
  }
  return null;
}

function enterable(stat: { uid: number; gid: number; mode: number }, user: SystemUser | null): boolean {
  if (user && stat.uid === user.uid) return (stat.mode & 0o100) !== 0;
  if (user && stat.gid === user.gid) return (stat.mode & 0o010) !== 0;
  return (stat.mode & 0o001) !== 0;
}
