import { timingSafeEqual } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { toString as qrSvg } from 'qrcode';

const ISSUER = 'Analytics Platform';
const PERIOD_SECONDS = 30;
const DIGITS = 6;
/** Steps either side of now a code may come from: clocks drift and people type slowly. */
const WINDOW = 1;

/** A new random TOTP secret (160 bits, RFC 4226's recommendation), base32 as authenticator apps take it. */
export function newTotpSecret(): string {
  return new Secret({ size: 20 }).base32;
}

function totp(secret: string, account: string): TOTP {
  return new TOTP({ issuer: ISSUER, label: account, secret: Secret.fromBase32(secret), algorithm: 'SHA1', digits: DIGITS, period: PERIOD_SECONDS });
}

/** The `otpauth://totp/…` URI that authenticator apps scan. */
export function otpauthUri(secret: string, account: string): string {
  return totp(secret, account).toString();
}

/** The URI as an SVG QR code. */
export function qrCodeSvg(uri: string): Promise<string> {
  return qrSvg(uri, { type: 'svg', errorCorrectionLevel: 'M', margin: 2 });
}

/**
 * The time step a code is valid for (now or one step either side), or null. Every candidate is
 * compared in constant time, and all of them always are, so timing tells nothing about which matched.
 */
export function matchTotpStep(secret: string, code: string, now = Date.now()): number | null {
  const given = Buffer.from(code.padEnd(DIGITS, ' ').slice(0, 16));
  const current = Math.floor(now / 1000 / PERIOD_SECONDS);
  const key = Secret.fromBase32(secret);
  let matched: number | null = null;
  for (let step = current - WINDOW; step <= current + WINDOW; step++) {
    const expected = Buffer.from(TOTP.generate({ secret: key, digits: DIGITS, period: PERIOD_SECONDS, timestamp: step * PERIOD_SECONDS * 1000 }));
    if (expected.length === given.length && timingSafeEqual(expected, given) && matched === null) matched = step;
  }
  return /^\d{6}$/.test(code) ? matched : null;
}
