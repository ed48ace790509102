import { LockMode } from '@mikro-orm/postgresql';
import { createTransport, type Transporter } from 'nodemailer';
import type { Orm } from '../../shared/db/orm.js';
import type { Logger } from '../../shared/logger.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import type { Worker } from '../../shared/subgraph/define.js';
import { MAIL_QUEUED_TOPIC } from './mail.outbox.js';
import { OutboxMail } from './outbox-mail.entity.js';

export interface MailWorkerOptions {
  orm: Orm;
  pubsub: PubSub;
  log: Logger;
  /** Unset: mail is logged and kept in the outbox, as the platform contract says. */
  smtpUrl?: string;
  from: string;
  sweepMs?: number;
}

/** Mails taken per transaction; each waits for its SMTP answer while its row is locked. */
const BATCH = 10;
const MAX_ATTEMPTS = 10;
const SMTP_TIMEOUT_MS = 10_000;

/**
 * Delivers the outbox: at once when a commit announces mail, and on a sweep for retries (backoff
 * from 10 s to an hour, then `failed`). Rows are locked with SKIP LOCKED, so several processes
 * never send the same mail; one is sent at least once (a crash between the SMTP answer and the
 * commit sends it again).
 */
export function startMailWorker(options: MailWorkerOptions): Worker {
  const { orm, pubsub, log } = options;
  const transport = options.smtpUrl ? smtpTransport(options.smtpUrl) : undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let stopped = false;

  const pass = (): Promise<void> => {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      do {
        again = false;
        while (!stopped && (await deliverBatch(orm, transport, options.from, log)) === BATCH);
      } while (again && !stopped);
    })()
      .catch((error: unknown) => log.error({ err: error }, 'mail delivery pass failed'))
      .finally(() => {
        running = undefined;
      });
    return running;
  };

  const announcements = pubsub.subscribe(MAIL_QUEUED_TOPIC);
  void (async () => {
    for await (const _ of announcements) void pass();
  })();
  const timer = setInterval(() => void pass(), options.sweepMs ?? 10_000);
  timer.unref();
  void pass();

  return {
    // A pass under way may have started before the caller's commit: wait for it, then pass again.
    drain: async () => {
      await running;
      await pass();
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await announcements.return?.();
      await running;
      transport?.close();
    },
  };
}

/** SMTP_URL's server, with timeouts so that a silent server holds no outbox row for long. */
function smtpTransport(url: string): Transporter {
  const joiner = url.includes('?') ? '&' : '?';
  const timeouts = `connectionTimeout=${SMTP_TIMEOUT_MS}&greetingTimeout=${SMTP_TIMEOUT_MS}&socketTimeout=${SMTP_TIMEOUT_MS}`;
  return createTransport(`${url}${joiner}${timeouts}`);
}

/** Sends (or, without SMTP, logs and keeps) up to BATCH due mails; returns how many it took. */
async function deliverBatch(orm: Orm, transport: Transporter | undefined, from: string, log: Logger): Promise<number> {
  return orm.em.fork().transactional(async (em) => {
    const due = await em.find(
      OutboxMail,
      { status: 'pending', next_attempt_at: { $lte: new Date() } },
      { orderBy: { id: 'asc' }, limit: BATCH, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE },
    );
    for (const mail of due) {
      if (!transport) {
        // The contract's fallback: an operator without SMTP reads the mail in the log (or the outbox).
        log.info({ mail_id: mail.id, to: mail.recipient, subject: mail.subject, purpose: mail.purpose, body: mail.body }, 'mail kept in the outbox (SMTP_URL is not set)');
        mail.status = 'kept';
        continue;
      }
      await send(transport, from, mail, log);
    }
    return due.length;
  });
}

async function send(transport: Transporter, from: string, mail: OutboxMail, log: Logger): Promise<void> {
  try {
    await transport.sendMail({ from, to: mail.recipient, subject: mail.subject, text: mail.body ?? '' });
    Object.assign(mail, { status: 'sent', sent_at: new Date(), body: null, last_error: null });
    log.info({ mail_id: mail.id, purpose: mail.purpose }, 'mail sent');
  } catch (error) {
    mail.attempts += 1;
    mail.last_error = (error as Error).message.slice(0, 1000);
    if (mail.attempts >= MAX_ATTEMPTS) mail.status = 'failed';
    else mail.next_attempt_at = new Date(Date.now() + Math.min(10_000 * 2 ** (mail.attempts - 1), 3_600_000));
    log.warn({ mail_id: mail.id, purpose: mail.purpose, attempts: mail.attempts, err: error }, 'mail not sent; will retry');
  }
}
