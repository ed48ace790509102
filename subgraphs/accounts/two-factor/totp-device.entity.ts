import { Entity, OneToOne, PrimaryKey, Property } from '@mikro-orm/core';
import { User } from '../users/user.entity.js';

/**
 * A user's TOTP authenticator: pending from `two_factor_start_setup` until a code confirms it
 * (within SETUP_LIFETIME_MS), then on until disabled. One per user.
 */
@Entity({ tableName: 'totp_devices' })
export class TotpDevice {
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @OneToOne(() => User, { owner: true, deleteRule: 'cascade', unique: true })
  user!: User;

  /** The base32 secret, sealed with SECRET_KEY (AES-256-GCM). */
  @Property({ type: 'text', hidden: true })
  secret_sealed!: string;

  @Property({ type: 'boolean' })
  confirmed: boolean = false;

  /** The last 30-second step a code was accepted for: a code is good once, and never an older one. */
  @Property({ type: 'bigint', nullable: true })
  last_used_step: string | null = null;

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();

  @Property({ type: 'timestamptz', nullable: true })
  confirmed_at: Date | null = null;
}
