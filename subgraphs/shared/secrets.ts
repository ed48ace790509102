import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { config } from './config.js';
import { deriveKey, sha256Hex } from './crypto.js';

const MAX_OPENED = 10_000;

/**
 * Encrypts secrets kept at rest with AES-256-GCM under a key derived from SECRET_KEY. The stored
 * form is `v1:<iv>:<tag>:<ciphertext>` (base64url); a record written under another SECRET_KEY
 * does not decrypt.
 */
export class SecretBox {
  private readonly key: Buffer;
  /**
   * Opened values by sealed form, oldest dropped first: a page of 100 projects opens 100 tokens
   * per request. A sealed form always opens to the same value, and whoever can read this
   * process's memory holds the key anyway.
   */
  private readonly opened = new Map<string, string>();

  constructor(secretKey: string) {
    this.key = deriveKey(secretKey, 'secrets-at-rest');
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), ciphertext].map((part) => (typeof part === 'string' ? part : part.toString('base64url'))).join(':');
  }

  open(sealed: string): string {
    const cached = this.opened.get(sealed);
    if (cached !== undefined) return cached;
    const [version, iv, tag, ciphertext] = sealed.split(':');
    if (version !== 'v1' || !iv || !tag || ciphertext === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    const plaintext = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
    if (this.opened.size >= MAX_OPENED) this.opened.delete(this.opened.keys().next().value!);
    this.opened.set(sealed, plaintext);
    return plaintext;
  }
}

let box: SecretBox | undefined;

/** The process's SecretBox, keyed by the configured SECRET_KEY. */
export function secretBox(): SecretBox {
  box ??= new SecretBox(config().SECRET_KEY);
  return box;
}

/** How a token is found without storing it in clear: `sha256$<hex>`, as PostHog stores keys. */
export function tokenHash(token: string): string {
  return `sha256$${sha256Hex(token)}`;
}
