import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/core';
import { User } from '../users/user.entity.js';

/** A single-use backup code: shown once in clear, then kept as a keyed hash and a masked form. */
@Entity({ tableName: 'two_factor_backup_codes' })
@Index({ properties: ['user', 'used_at'] })
export class BackupCode {
  @PrimaryKey({ autoincrement: true })
  id!: number;

  @ManyToOne(() => User, { deleteRule: 'cascade' })
  user!: User;

  @Property({ type: 'text', hidden: true })
  code_hash!: string;

  /** All but the last two characters hidden, so the user can tell codes apart. */
  @Property({ type: 'text' })
  masked!: string;

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();

  @Property({ type: 'timestamptz', nullable: true })
  used_at: Date | null = null;
}
