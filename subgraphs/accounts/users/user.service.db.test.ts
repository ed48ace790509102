import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { subgraphOrm } from '../../../test/kit/orm.js';
import { accounts } from '../index.js';
import { User } from './user.entity.js';
import { UserService } from './user.service.js';

const PASSWORD = 'correct horse battery staple';
const orm = subgraphOrm(accounts);
const service = () => new UserService(orm().em.fork());

const address = (label: string) => `${label}-${randomBytes(5).toString('hex')}@example.test`;

describe(UserService.name, () => {
  describe('ensure', () => {
    it('stores a new email lower-cased with a scrypt hash, finds it again in any case, and refuses it with a wrong password', async () => {
      const email = address('Ensure');
      const { user, created } = await service().ensure(` ${email.toUpperCase()} `, PASSWORD);
      expect(created).toBe(true);
      const rows = await orm().em.fork().execute<{ email: string; password_hash: string }[]>('select email, password_hash from accounts.users where id = ?', [user.id]);
      expect(rows[0]!.email).toBe(email.toLowerCase());
      expect(rows[0]!.password_hash).toMatch(/^scrypt\$/);
      expect(rows[0]!.password_hash).not.toContain(PASSWORD);
      expect(await service().ensure(email, PASSWORD)).toMatchObject({ user: { id: user.id }, created: false });
      await expect(service().ensure(email, 'not the password')).rejects.toMatchObject({ extensions: { status: 401 } });
    });

    it('refuses a short password and creates nobody', async () => {
      const email = address('short');
      await expect(service().ensure(email, 'short')).rejects.toMatchObject({ extensions: { code: 'password_too_short', attr: 'password' } });
      expect(await orm().em.fork().count(User, { email })).toBe(0);
    });
  });

  describe('findByIds', () => {
    it('leaves deactivated users out, so that no record embeds them', async () => {
      const [active, inactive] = [address('active'), address('inactive')].map((email) => Object.assign(new User(), { email, password_hash: 'scrypt$unused' }));
      inactive!.is_active = false;
      await orm().em.fork().persistAndFlush([active!, inactive!]);
      const found = await service().findByIds([active!.id, inactive!.id, 2_000_000_000]);
      expect([...found.keys()]).toEqual([active!.id]);
    });
  });
});
