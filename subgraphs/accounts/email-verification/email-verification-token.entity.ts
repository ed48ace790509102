import { Entity, Index, ManyToOne, Property } from '@mikro-orm/core';
import { User } from '../users/user.entity.js';
import { UuidEntity } from '../../shared/db/base.entity.js';

export type TokenOrigin = 'request' | 'change';

/** A mailed verification token for one address of a user; only its SHA-256 is kept. */
@Entity({ tableName: 'email_verification_tokens' })
@Index({ properties: ['user', 'created_at'] })
export class EmailVerificationToken extends UuidEntity {
  @ManyToOne(() => User, { deleteRule: 'cascade' })
  user!: User;

  /** The address the token proves: the user's email, or the pending one it would replace it with. */
  @Property({ type: 'text' })
  email!: string;

  /** `request` (anyone may ask, by uuid or address) or `change` (the account's own email change): each has its own hourly quota. */
  @Property({ type: 'text' })
  origin: TokenOrigin = 'request';

  @Property({ type: 'text', unique: true })
  token_hash!: string;

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();

  @Property({ type: 'timestamptz' })
  expires_at!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  used_at: Date | null = null;
}
