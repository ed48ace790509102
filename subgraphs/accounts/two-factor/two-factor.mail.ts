import type { Mail } from '../mail/mail.outbox.js';

/** The notice PostHog sends when two-factor authentication is turned on or off. */
export function twoFactorNotice(address: string, change: 'enabled' | 'disabled'): Mail {
  return {
    recipient: address,
    subject: `Two-factor authentication ${change}`,
    purpose: `two_factor_${change}`,
    body: [
      'Hello,',
      '',
      `Two-factor authentication was ${change} for your Analytics Platform account.`,
      'If this was not you, change your password and revoke your personal API keys now.',
    ].join('\n'),
  };
}
