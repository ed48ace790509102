import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/core';
import { User } from '../users/user.entity.js';

/** One wrong two-factor code: enough of them in the window locks further attempts out. */
@Entity({ tableName: 'two_factor_failures' })
@Index({ properties: ['user', 'created_at'] })
export class TwoFactorFailure {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  @ManyToOne(() => User, { deleteRule: 'cascade' })
  user!: User;

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();
}
