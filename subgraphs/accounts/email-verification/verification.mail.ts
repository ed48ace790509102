import type { Mail } from '../mail/mail.outbox.js';

/** The verification mail: plain text, the token on a line of its own so that no encoding breaks it. */
export function verificationMail(uuid: string, address: string, token: string): Mail {
  return {
    recipient: address,
    subject: 'Verify your email address',
    purpose: 'email_verification',
    body: [
      'Hello,',
      '',
      `Someone (we hope you) asked to verify ${address} for an Analytics Platform account.`,
      'To confirm it within 24 hours, send this request with your personal API key or without one:',
      '',
      '  POST /api/users/verify_email/',
      `  {"uuid": "${uuid}", "token": "<the token below>"}`,
      '',
      'Token:',
      token,
      '',
      'If you did not ask for this, ignore this mail: nothing changes until the token is used.',
    ].join('\n'),
  };
}
