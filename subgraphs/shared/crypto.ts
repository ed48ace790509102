import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `bytes` of randomness as base62 (what PostHog's token formats use: prefix + alphanumerics). */
export function randomBase62(bytes: number): string {
  let value = BigInt(`0x${randomBytes(bytes).toString('hex')}`);
  const length = Math.ceil((bytes * 8) / Math.log2(62));
  let out = '';
  for (let i = 0; i < length; i++) {
    out = BASE62[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out;
}

/** A new secret token: prefix and 160 bits (or more) of randomness. */
export function generateToken(prefix: 'phx_' | 'phc_' | 'phs_', bytes = 20): string {
  return prefix + randomBase62(bytes);
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Compares two strings in time independent of where they differ. */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  if (left.length !== right.length) {
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

/** A 32-byte key for one purpose, derived from SECRET_KEY so that purposes never share a key. */
export function deriveKey(secret: string, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, 'analytics-platform', purpose, 32));
}

export function hmacBase64url(key: Buffer, data: string): string {
  return createHmac('sha256', key).update(data).digest('base64url');
}

/** `phx_...wxyz`: first four and last four characters, the rest hidden. */
export function maskSecret(value: string): string {
  return value.length <= 8 ? '****' : `${value.slice(0, 4)}...${value.slice(-4)}`;
}
