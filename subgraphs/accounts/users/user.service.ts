import type { EntityManager } from '@mikro-orm/postgresql';
import { AuthenticationFailedError } from '../../shared/errors.js';
import { hashPassword, verifyPassword } from './password.js';
import { newPassword, normalizedEmail } from './user-profile.rules.js';
import { User } from './user.entity.js';

export class UserService {
  constructor(private readonly em: EntityManager) {}

  async findByIds(ids: readonly number[]): Promise<Map<number, User>> {
    const users = await this.em.find(User, { id: { $in: [...ids] }, is_active: true });
    return new Map(users.map((user) => [user.id, user]));
  }

  /**
   * The user with this email, created when new; an existing one must know its password.
   * Emails are matched case-insensitively and stored lower-cased.
   */
  async ensure(email: string, password: string): Promise<{ user: User; created: boolean }> {
    const normalized = normalizedEmail(email);
    newPassword(password);
    const existing = await this.em.findOne(User, { email: normalized });
    if (existing) {
      if (!(await verifyPassword(password, existing.password_hash))) {
        throw new AuthenticationFailedError('The password does not match the existing user.');
      }
      return { user: existing, created: false };
    }
    const user = Object.assign(new User(), { email: normalized, password_hash: await hashPassword(password) });
    await this.em.persistAndFlush(user);
    return { user, created: true };
  }

  async count(): Promise<number> {
    return this.em.count(User, {});
  }
}
