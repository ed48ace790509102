import { constantTimeEqual, deriveKey, hmacBase64url } from '../crypto.js';

/** Membership levels, as PostHog numbers them. */
export const MembershipLevel = { member: 1, admin: 8, owner: 15 } as const;

/**
 * Where an environment lives. Not part of the actor: a user may reach thousands of environments,
 * so subgraphs look the placement up (the projects facade) and test the organization instead.
 */
export interface EnvironmentPlacement {
  id: number;
  project_id: number;
  organization_id: string;
}

/**
 * Who is calling, as the router established it: the user behind a personal API key with the key's
 * scopes and the user's memberships, the router itself (`service`), or nobody (`anonymous`).
 */
export interface Actor {
  kind: 'anonymous' | 'personal_api_key' | 'service';
  user?: { id: number; uuid: string };
  key_id?: string;
  scopes: string[];
  /** organization id → membership level; every project of an organization is open to its members */
  organizations: Record<string, number>;
}

export const ACTOR_HEADER = 'x-actor';
/** Long enough for a slow query plan, short enough that a captured header is soon useless. */
export const ACTOR_TTL_SECONDS = 30;

export const ANONYMOUS: Actor = { kind: 'anonymous', scopes: [], organizations: {} };
export const SERVICE: Actor = { kind: 'service', scopes: ['INTERNAL'], organizations: {} };

/** Signs and verifies the actor header that the router sends to subgraphs. */
export class ActorSigner {
  private readonly key: Buffer;

  constructor(secretKey: string) {
    this.key = deriveKey(secretKey, 'actor-header');
  }

  sign(actor: Actor, now = Date.now()): string {
    const payload = Buffer.from(JSON.stringify({ ...actor, exp: Math.floor(now / 1000) + ACTOR_TTL_SECONDS })).toString(
      'base64url',
    );
    return `v1.${payload}.${hmacBase64url(this.key, payload)}`;
  }

  /** The actor in a header, or null when it is missing, malformed, forged or expired. */
  verify(header: string | null | undefined, now = Date.now()): Actor | null {
    if (!header) return null;
    const [version, payload, signature] = header.split('.');
    if (version !== 'v1' || !payload || !signature) return null;
    if (!constantTimeEqual(signature, hmacBase64url(this.key, payload))) return null;
    try {
      const { exp, ...actor } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Actor & { exp: number };
      return typeof exp === 'number' && exp * 1000 >= now ? actor : null;
    } catch {
      return null;
    }
  }
}
