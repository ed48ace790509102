import type { EntityManager } from '@mikro-orm/postgresql';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import { OutboxMail } from './outbox-mail.entity.js';

/** Published after a commit that queued mail, so that a worker delivers it at once. */
export const MAIL_QUEUED_TOPIC = 'accounts.mail_queued';

export interface Mail {
  recipient: string;
  subject: string;
  body: string;
  purpose: string;
}

/** Queues a mail in the caller's unit of work: it is written, and later sent, only if that commits. */
export function queueMail(em: EntityManager, mail: Mail): void {
  em.persist(Object.assign(new OutboxMail(), mail));
}

/** Tells the mail workers that something was queued (after the commit; the next sweep would find it anyway). */
export async function announceMail(pubsub: PubSub): Promise<void> {
  await pubsub.publish(MAIL_QUEUED_TOPIC, {});
}
