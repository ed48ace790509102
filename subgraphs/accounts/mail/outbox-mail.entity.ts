import { Entity, Index, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * `pending` until a worker takes it (`sending`, for a lease), then `sent`, back to `pending` for a
 * retry, or `failed`; `kept` here when there is no SMTP server.
 */
export type OutboxStatus = 'pending' | 'sending' | 'sent' | 'failed' | 'kept';

/**
 * A mail the platform sends, written in the transaction of what caused it and delivered after
 * the commit: nothing is mailed for a change that was rolled back, and nothing is lost when SMTP
 * is down or the process stops. The body is dropped once the mail is delivered or given up on,
 * and a kept one's after a day (it may hold a token, which has expired by then).
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

  /** Until when the worker that took it may send it; after that another may (it stopped mid-way). */
  @Property({ type: 'timestamptz', nullable: true })
  lease_until: Date | null = null;

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();

  @Property({ type: 'timestamptz', nullable: true })
  sent_at: Date | null = null;
}
