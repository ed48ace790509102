/** The query parameter (and JSON body field) PostHog's API reads a personal API key from when no header carries one. */
export const KEY_PARAMETER = 'personal_api_key';

/** A URL to log: a key in its query string is replaced (it is a credential). */
export function loggableUrl(url: string | undefined): string | undefined {
  if (!url?.includes(KEY_PARAMETER)) return url;
  return url.replace(new RegExp(`([?&]${KEY_PARAMETER}=)[^&#]*`, 'g'), '$1[redacted]');
}

/**
 * An Authorization header as PostHog reads it: `undefined` when it is not of the Bearer scheme (it
 * carries no key: `Basic …`), `null` when it is Bearer without exactly one credential (an invalid
 * key), else the credential.
 */
export function bearerCredential(authorization: string): string | null | undefined {
  if (!/^\s*bearer(\s|$)/i.test(authorization)) return undefined;
  return /^bearer\s+(\S+)\s*$/i.exec(authorization)?.[1] ?? null;
}

/** Whether an Authorization header is of the Bearer scheme (with or without a credential after it). */
export function isBearer(authorization: string): boolean {
  return bearerCredential(authorization) !== undefined;
}
