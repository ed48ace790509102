import { createTransport, type Transporter } from 'nodemailer';
import type { Orm } from '../../shared/db/orm.js';
import type { Logger } from '../../shared/logger.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import { resubscribing } from '../../shared/pubsub/resubscribing.js';
import type { Worker } from '../../shared/subgraph/define.js';
import { startPeriodicWorker } from '../../shared/subgraph/periodic.worker.js';
import { MAIL_QUEUED_TOPIC } from './mail.outbox.js';

export interface MailWorkerOptions {
  orm: Orm;
  pubsub: PubSub;
  log: Logger;
  /** Unset: mail is logged and kept in the outbox, as the platform contract says. */
  smtpUrl?: string;
  from: string;
  sweepMs?: number;
}

interface ClaimedMail {
  id: string;
  recipient: string;
  subject: string;
  body: string | null;
  purpose: string;
  attempts: number;
}

/** Mails taken at once. */
const BATCH = 10;
/** With backoff from 10 s doubling to an hour, about a day of retries: as long as a verification token lives. */
const MAX_ATTEMPTS = 30;
const SMTP_TIMEOUT_MS = 10_000;
/** Long enough for a batch at SMTP_TIMEOUT_MS a step; a worker that dies leaves its mail to another after it. */
const LEASE = '5 minutes';

/**
 * Delivers the outbox: at once when a commit announces mail, and on a sweep for retries. A batch is
 * claimed in one short statement (SKIP LOCKED, with a lease), sent outside any transaction, and
 * each result recorded on its own: several processes never send the same mail, and a mail is sent
 * at least once (a crash between the SMTP answer and the record sends it again).
 */
export function startMailWorker(options: MailWorkerOptions): Worker {
  const { orm, pubsub, log } = options;
  const transport = options.smtpUrl ? smtpTransport(options.smtpUrl) : undefined;
  return startPeriodicWorker({
    run: async (stopped) => {
      while (!stopped() && (await deliverBatch(orm, transport, options.from, log, stopped)) === BATCH);
      await forgetOldBodies(orm);
    },
    everyMs: options.sweepMs ?? 10_000,
    log,
    failure: 'mail delivery pass failed',
    // A wake-up lost with the pub/sub's connection waits for the next sweep at most.
    wakeUps: resubscribing(pubsub, MAIL_QUEUED_TOPIC, () => undefined),
    onStop: () => transport?.close(),
  });
}

/** SMTP_URL's server, with timeouts so that a silent server holds no mail for long. */
function smtpTransport(url: string): Transporter {
  const joiner = url.includes('?') ? '&' : '?';
  const timeouts = `connectionTimeout=${SMTP_TIMEOUT_MS}&greetingTimeout=${SMTP_TIMEOUT_MS}&socketTimeout=${SMTP_TIMEOUT_MS}`;
  return createTransport(`${url}${joiner}${timeouts}`);
}

/** Sends (or, without SMTP, logs and keeps) up to BATCH due mails; returns how many it took. */
async function deliverBatch(orm: Orm, transport: Transporter | undefined, from: string, log: Logger, stopped: () => boolean): Promise<number> {
  const connection = orm.em.getConnection();
  const claimed = await connection.execute<ClaimedMail[]>(
    `update accounts.outbox set status = ?, lease_until = now() + interval '${LEASE}'
      where id in (select id from accounts.outbox
                    where (status = 'pending' and next_attempt_at <= now()) or (status = 'sending' and lease_until < now())
                    order by id limit ? for update skip locked)
      returning id, recipient, subject, body, purpose, attempts`,
    [transport ? 'sending' : 'kept', BATCH],
  );
  for (const mail of claimed) {
    if (!transport) {
      // The contract's fallback: an operator without SMTP reads the mail in the log (or the outbox).
      log.info({ mail_id: mail.id, to: mail.recipient, subject: mail.subject, purpose: mail.purpose, body: mail.body }, 'mail kept in the outbox (SMTP_URL is not set)');
      continue;
    }
    // What is claimed but not tried goes back when its lease ends.
    if (stopped()) break;
    await send(orm, transport, from, mail, log);
  }
  return claimed.length;
}

async function send(orm: Orm, transport: Transporter, from: string, mail: ClaimedMail, log: Logger): Promise<void> {
  const connection = orm.em.getConnection();
  try {
    // The recipient as an address object: the mail library parses no list out of it.
    await transport.sendMail({ from, to: { name: '', address: mail.recipient }, subject: mail.subject, text: mail.body ?? '' });
    await connection.execute(`update accounts.outbox set status = 'sent', sent_at = now(), body = null, lease_until = null, last_error = null where id = ?`, [mail.id]);
    log.info({ mail_id: mail.id, purpose: mail.purpose }, 'mail sent');
  } catch (error) {
    const attempts = mail.attempts + 1;
    const give_up = attempts >= MAX_ATTEMPTS || isPermanent(error);
    const retryInMs = Math.min(10_000 * 2 ** (attempts - 1), 3_600_000);
    await connection.execute(
      `update accounts.outbox set status = ?, attempts = ?, last_error = ?, lease_until = null,
              next_attempt_at = now() + (? * interval '1 millisecond'), body = case when ? then null else body end
        where id = ?`,
      [give_up ? 'failed' : 'pending', attempts, (error as Error).message.slice(0, 1000), retryInMs, give_up, mail.id],
    );
    log.warn({ mail_id: mail.id, purpose: mail.purpose, attempts, given_up: give_up, err: error }, give_up ? 'mail not sent; given up' : 'mail not sent; will retry');
  }
}

/** A 5xx answer of the SMTP server (unknown recipient, refused sender) will not change on a retry. */
function isPermanent(error: unknown): boolean {
  const code = (error as { responseCode?: unknown }).responseCode;
  return typeof code === 'number' && code >= 500 && code < 600;
}

/** Kept mail holds its token in clear: after a day the token has expired, and the body goes. */
async function forgetOldBodies(orm: Orm): Promise<void> {
  await orm.em
    .getConnection()
    .execute(`update accounts.outbox set body = null where status = 'kept' and body is not null and created_at < now() - interval '1 day'`);
}
