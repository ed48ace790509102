import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { postgresUser, unreachableAncestor } from './reachable.js';

describe('unreachableAncestor', () => {
  const root = mkdtempSync(join(tmpdir(), 'reachable-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('names the topmost directory another user cannot enter', () => {
    const locked = join(root, 'locked');
    mkdirSync(join(locked, 'inner', 'deeper'), { recursive: true });
    chmodSync(root, 0o711);
    chmodSync(locked, 0o700);
    chmodSync(join(locked, 'inner'), 0o700);
    expect(unreachableAncestor(join(locked, 'inner', 'deeper', '.data'), null)).toBe(locked);
    expect(unreachableAncestor(join(locked, 'inner', 'deeper', '.data'), { uid: 999_999, gid: 999_999 })).toBe(locked);
  });

  it('lets a directory be entered through "other", its group or its owner', () => {
    const open = join(root, 'open');
    mkdirSync(open);
    chmodSync(open, 0o701);
    expect(unreachableAncestor(join(open, '.data'), null)).toBeNull();
    const owned = join(root, 'owned');
    mkdirSync(owned);
    chmodSync(owned, 0o700);
    const { uid, gid } = statSync(owned);
    expect(unreachableAncestor(join(owned, '.data'), { uid, gid: 999_999 })).toBeNull();
    chmodSync(owned, 0o710);
    expect(unreachableAncestor(join(owned, '.data'), { uid: 999_999, gid })).toBeNull();
    chmodSync(owned, 0o700);
    expect(unreachableAncestor(join(owned, '.data'), { uid: 999_999, gid })).toBe(owned);
  });

  it('reads the postgres user from a passwd file', () => {
    expect(postgresUser('/nonexistent/passwd')).toBeNull();
    const user = postgresUser();
    if (user) expect(Number.isInteger(user.uid) && Number.isInteger(user.gid)).toBe(true);
  });
});
