import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createScratchDatabase, dropDatabase } from '../subgraphs/shared/db/database.js';
import { sql } from './kit/db.js';
import { api, gql } from './kit/http.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startSmtpSink, type SmtpSink } from './kit/smtp-sink.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
let sink: SmtpSink;
/**
 * A database of this file's own: every stack's mail worker delivers the whole outbox of its
 * database, and the other suites' stacks have no SMTP (they would keep these mails unsent).
 */
let databaseUrl: string;

beforeAll(async () => {
  databaseUrl = await createScratchDatabase(inject('databaseUrl'), 'analytics_mail_test');
  sink = await startSmtpSink();
  stack = await startStack({ databaseUrl, smtpUrl: sink.url });
});
afterAll(async () => {
  await stack?.stop();
  await sink?.close();
  if (databaseUrl) await dropDatabase(databaseUrl);
});

const tenant = (label: string) => seedTenant(databaseUrl, label);
const request = (body: unknown, key?: string) => api(stack.url, 'POST', '/api/users/request_email_verification/', { body, key });
const verify = (body: unknown, key?: string) => api(stack.url, 'POST', '/api/users/verify_email/', { body, key });

/** The token of the latest verification mail to `address`, read from the delivered mail. */
async function mailedToken(address: string, after = 0): Promise<string> {
  const deadline = Date.now() + 10_000;
  while (sink.mails.filter((mail) => mail.to.includes(address) && /Verify/.test(mail.subject)).length <= after) {
    if (Date.now() > deadline) throw new Error(`no verification mail to ${address}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const mail = sink.mails.filter((candidate) => candidate.to.includes(address) && /Verify/.test(candidate.subject)).at(-1)!;
  return /Token:\n([0-9A-Za-z]+)\n/.exec(mail.text)![1]!;
}
const mailsTo = (address: string) => sink.mails.filter((mail) => mail.to.includes(address)).length;
const account = async (owner: Tenant) => (await api(stack.url, 'GET', '/api/users/@me/', { key: owner.personal_api_key })).body;

describe('email verification', () => {
  it('mails a token that verifies the address once, without a key', async () => {
    const owner = await tenant('verify');
    const asked = await request({ uuid: owner.user_uuid });
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual({ success: true });
    const token = await mailedToken(owner.email);
    expect(token.length).toBeGreaterThanOrEqual(40);
    const stored = await sql(databaseUrl, 'select token_hash from accounts.email_verification_tokens t join accounts.users u on u.id = t.user_id where u.uuid = $1', [owner.user_uuid]);
    expect(JSON.stringify(stored)).not.toContain(token);

    const verified = await verify({ uuid: owner.user_uuid, token });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({ success: true, token });
    expect((await account(owner)).is_email_verified).toBe(true);
    const reused = await verify({ uuid: owner.user_uuid, token });
    expect(reused.status).toBe(400);
    expect(reused.body).toMatchObject({ type: 'validation_error', code: 'token_used', attr: 'token' });
    // The outbox keeps no token once the mail went out (recorded just after the SMTP answer).
    await stack.subgraphs.workers.accounts!.drain();
    const outbox = await sql<{ status: string; body: string | null }>(databaseUrl, `select status, body from accounts.outbox where recipient = $1`, [owner.email]);
    expect(outbox).toEqual([{ status: 'sent', body: null }]);
  });

  it('answers alike for unknown accounts and addresses, and mails nothing then', async () => {
    const owner = await tenant('enumerate');
    const known = await request({ email: owner.email.toUpperCase() });
    const unknownAddress = await request({ email: 'nobody-here@example.test' });
    const unknownUuid = await request({ uuid: '00000000-0000-4000-8000-000000000000' });
    const malformedUuid = await request({ uuid: 'not-a-uuid' });
    for (const answer of [known, unknownAddress, unknownUuid, malformedUuid]) {
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ success: true });
    }
    await mailedToken(owner.email);
    await stack.subgraphs.workers.accounts!.drain();
    expect(mailsTo('nobody-here@example.test')).toBe(0);
  });

  it('refuses wrong, expired and missing tokens with their own codes', async () => {
    const owner = await tenant('bad-token');
    await request({}, owner.personal_api_key);
    const token = await mailedToken(owner.email);
    expect((await verify({ uuid: owner.user_uuid, token: 'x'.repeat(43) })).body).toMatchObject({ code: 'invalid_token', attr: 'token' });
    expect((await verify({ uuid: owner.user_uuid })).body).toMatchObject({ code: 'required', attr: 'token' });
    const other = await tenant('bad-token-other');
    expect((await verify({ uuid: other.user_uuid, token })).body).toMatchObject({ code: 'invalid_token' });
    await sql(databaseUrl, `update accounts.email_verification_tokens set expires_at = now() - interval '1 second' where user_id = (select id from accounts.users where uuid = $1)`, [owner.user_uuid]);
    expect((await verify({ uuid: owner.user_uuid, token })).body).toMatchObject({ code: 'token_expired', attr: 'token' });
    expect((await account(owner)).is_email_verified).toBe(false);
  });

  it('mails an account at most three times an hour, however often and however concurrently it is asked', async () => {
    const owner = await tenant('throttle');
    const answers = await Promise.all(Array.from({ length: 12 }, () => request({ uuid: owner.user_uuid })));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    await mailedToken(owner.email, 2);
    await new Promise((resolve) => setTimeout(resolve, 500));
    await stack.subgraphs.workers.accounts!.drain();
    expect(mailsTo(owner.email)).toBe(3);
    const tokens = await sql(databaseUrl, `select 1 from accounts.email_verification_tokens t join accounts.users u on u.id = t.user_id where u.uuid = $1`, [owner.user_uuid]);
    expect(tokens).toHaveLength(3);
  });

  it("cannot be used by strangers to spend the account's own email-change mails", async () => {
    const owner = await tenant('quota-owner');
    await Promise.all(Array.from({ length: 5 }, () => request({ email: owner.email })));
    await mailedToken(owner.email, 2);
    const newAddress = `changed-${owner.email}`;
    const changed = await api(stack.url, 'PATCH', '/api/users/@me/', { key: owner.personal_api_key, body: { email: newAddress } });
    expect(changed.status).toBe(200);
    await mailedToken(newAddress);
  });
});

describe('email verification over GraphQL', () => {
  it('requests, verifies and refuses a reused token, as over REST', async () => {
    const owner = await tenant('verify-graphql');
    const asked = await gql(stack.graphqlUrl, 'mutation { request_email_verification { success } }', {}, owner.personal_api_key);
    expect(asked.data.request_email_verification).toEqual({ success: true });
    const token = await mailedToken(owner.email);
    const verifyQuery = 'mutation ($uuid: String!, $token: String) { verify_email(uuid: $uuid, token: $token) { success token } }';
    const verified = await gql(stack.graphqlUrl, verifyQuery, { uuid: owner.user_uuid, token });
    expect(verified.data.verify_email).toEqual({ success: true, token });
    const reused = await gql(stack.graphqlUrl, verifyQuery, { uuid: owner.user_uuid, token });
    expect(reused.errors?.[0]?.extensions).toMatchObject({ code: 'token_used', attr: 'token', status: 400 });
    const me = await gql(stack.graphqlUrl, '{ me { is_email_verified } }', {}, owner.personal_api_key);
    expect(me.data.me.is_email_verified).toBe(true);
  });
});

describe('email change races', () => {
  it('does not apply a change that was cancelled while its token was being verified', async () => {
    const owner = await tenant('race-cancel');
    const newAddress = `race-${owner.email}`;
    await api(stack.url, 'PATCH', '/api/users/@me/', { key: owner.personal_api_key, body: { email: newAddress } });
    const token = await mailedToken(newAddress);
    const [verified, cancelled] = await Promise.all([
      verify({ uuid: owner.user_uuid, token }),
      api(stack.url, 'PATCH', '/api/users/cancel_email_change_request/', { key: owner.personal_api_key }),
    ]);
    const after = await account(owner);
    if (cancelled.status === 200) {
      // The cancel came first: the token died with it.
      expect(verified.status).toBe(400);
      expect(after).toMatchObject({ email: owner.email, pending_email: null });
    } else {
      expect(verified.status).toBe(200);
      expect(after).toMatchObject({ email: newAddress, pending_email: null });
    }
  });

  it('lets one of two accounts verifying the same new address win, and tells the other it is taken', async () => {
    const [first, second] = await Promise.all([tenant('race-a'), tenant('race-b')]);
    const shared = `shared-${Date.now()}@example.test`;
    for (const owner of [first, second]) await api(stack.url, 'PATCH', '/api/users/@me/', { key: owner.personal_api_key, body: { email: shared } });
    await mailedToken(shared, 1);
    const tokens = sink.mails.filter((mail) => mail.to.includes(shared)).map((mail) => /Token:\n([0-9A-Za-z]+)\n/.exec(mail.text)![1]!);
    const uuids = sink.mails.filter((mail) => mail.to.includes(shared)).map((mail) => /"uuid": "([0-9a-f-]+)"/.exec(mail.text)![1]!);
    const answers = await Promise.all(tokens.map((token, index) => verify({ uuid: uuids[index]!, token })));
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 400]);
    expect(answers.find((answer) => answer.status === 400)!.body).toMatchObject({ code: 'email_taken', attr: 'email' });
  });
});

describe('email change', () => {
  it('keeps the old address until the new one is verified by the mail sent to it', async () => {
    const [owner, other] = await Promise.all([tenant('change'), tenant('change-other')]);
    const newAddress = `new-${owner.email}`;
    const changed = await api(stack.url, 'PATCH', '/api/users/@me/', { key: owner.personal_api_key, body: { email: newAddress.toUpperCase() } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ email: owner.email, pending_email: newAddress });
    const token = await mailedToken(newAddress);
    expect(mailsTo(owner.email)).toBe(0);
    expect((await verify({ uuid: owner.user_uuid, token })).status).toBe(200);
    expect(await account(owner)).toMatchObject({ email: newAddress, pending_email: null, is_email_verified: true });

    const taken = await api(stack.url, 'PATCH', '/api/users/@me/', { key: other.personal_api_key, body: { email: newAddress } });
    expect(taken.status).toBe(400);
    expect(taken.body).toMatchObject({ code: 'email_taken', attr: 'email' });
  });

  it('cancels a pending change: the mailed token dies with it; a second cancel is a 400', async () => {
    const owner = await tenant('cancel');
    const newAddress = `cancelled-${owner.email}`;
    await gql(stack.graphqlUrl, 'mutation ($email: String) { update_user(uuid: "@me", email: $email) { pending_email } }', { email: newAddress }, owner.personal_api_key);
    const token = await mailedToken(newAddress);
    const cancelled = await api(stack.url, 'PATCH', '/api/users/cancel_email_change_request/', { key: owner.personal_api_key });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({ email: owner.email, pending_email: null, uuid: owner.user_uuid });
    expect((await verify({ uuid: owner.user_uuid, token })).body).toMatchObject({ code: 'token_used' });
    expect((await account(owner)).email).toBe(owner.email);
    const again = await api(stack.url, 'PATCH', '/api/users/cancel_email_change_request/', { key: owner.personal_api_key });
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ type: 'validation_error', code: 'email_change_request_not_found', detail: 'No active email change requests found.', attr: null });
  });
});

describe('mail without SMTP', () => {
  it('keeps the mail in the outbox (and the log) instead of sending it', async () => {
    const plain = await startStack({ databaseUrl: inject('databaseUrl') });
    try {
      const owner = await seedTenant(inject('databaseUrl'), 'outbox');
      expect((await api(plain.url, 'POST', '/api/users/request_email_verification/', { body: { uuid: owner.user_uuid } })).status).toBe(200);
      // The request is handled after the answer: wait for its mail to be queued and kept.
      const keptMail = () => sql<{ status: string; body: string; purpose: string }>(inject('databaseUrl'), `select status, body, purpose from accounts.outbox where recipient = $1 and status = 'kept'`, [owner.email]);
      for (let waited = 0; (await keptMail()).length === 0 && waited < 100; waited++) {
        await plain.subgraphs.workers.accounts!.drain();
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const kept = await keptMail();
      expect(kept).toHaveLength(1);
      expect(kept[0]).toMatchObject({ status: 'kept', purpose: 'email_verification' });
      const token = /Token:\n([0-9A-Za-z]+)\n/.exec(kept[0]!.body)![1]!;
      expect((await api(plain.url, 'POST', '/api/users/verify_email/', { body: { uuid: owner.user_uuid, token } })).status).toBe(200);
      expect(mailsTo(owner.email)).toBe(0);
    } finally {
      await plain.stop();
    }
  });
});
