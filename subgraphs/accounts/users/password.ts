import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** OWASP's recommended scrypt cost: N=2^17, r=8, p=1 (128 MiB per hash). */
export const COST: ScryptOptions = { N: 2 ** 17, r: 8, p: 1, maxmem: 256 * 1024 * 1024 };
const KEY_LENGTH = 32;

/**
 * scrypt runs at most this many at once: each takes 128 MiB and a libuv thread (of four) for a
 * deliberately long time, so a burst of password checks waits its turn instead of exhausting memory
 * and the thread pool that file and DNS work share.
 */
const MAX_CONCURRENT = 2;
let running = 0;
const waiting: (() => void)[] = [];

async function derive(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  // A finishing run hands its slot straight to the next in line, so no newcomer slips in between.
  if (running >= MAX_CONCURRENT) await new Promise<void>((resolve) => waiting.push(resolve));
  else running++;
  try {
    return await new Promise((resolve, reject) =>
      scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, options, (error, key) => (error ? reject(error) : resolve(key))),
    );
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

/** `scrypt$N$r$p$<salt>$<hash>`, so that a later cost change can still verify old hashes. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const key = await derive(password, Buffer.from(salt, 'base64url'), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: COST.maxmem,
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
}
