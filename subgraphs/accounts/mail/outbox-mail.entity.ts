import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/** `pending` until delivered (`sent`), given up on (`failed`), or kept here without SMTP (`kept`). */
export type OutboxStatus = 'pending' | 'sent' | 'failed' | 'kept';

/**
 * A mail the platform sends, written in the transaction of what caused it and delivered after
 * the commit: nothing is mailed for a change that was rolled back, and nothing is lost when SMTP
 * is down or the process stops. The body of a delivered mail is dropped (it may hold a token).
 */
@Entity({ tableName: 'outbox' })
@Index({ properties: ['status', 'next_attempt_at'] })
export class OutboxMail {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  @Property({ type: 'text' })
  recipient!: string;

  @Property({ type: 'text' })
  subject!: string;

  @Property({ type: 'text', nullable: true })
  body: string | null = null;

  /** What the mail is for (`email_verification`, `two_factor_enabled`, …), for the log. */
  @Property({ type: 'text' })
  purpose!: string;

  @Property({ type: 'text' })
  status: OutboxStatus = 'pending';

  @Property({ type: 'smallint' })
  attempts: number = 0;

  @Property({ type: 'timestamptz' })
  next_attempt_at: Date = new Date();

  @Property({ type: 'text', nullable: true })
  last_error: string | null = null;

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();

  @Property({ type: 'timestamptz', nullable: true })
  sent_at: Date | null = null;
}
