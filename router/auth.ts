import { parse, type DocumentNode } from 'graphql';
import { ANONYMOUS, SERVICE, type Actor, type ActorSigner } from '../subgraphs/shared/auth/actor.js';
import { KEY_CHANGES_TOPIC, type KeyChange } from '../subgraphs/shared/auth/key-changes.js';
import { bearerCredential } from '../subgraphs/shared/auth/key-parameter.js';
import type { PubSub } from '../subgraphs/shared/pubsub/pubsub.js';
import { resubscribing } from '../subgraphs/shared/pubsub/resubscribing.js';
import { sha256Hex } from '../subgraphs/shared/crypto.js';
import { AuthenticationFailedError } from '../subgraphs/shared/errors.js';
import type { LocalSubgraph } from '../subgraphs/shared/local-subgraph.ports.js';
import { callSubgraph } from './subgraph-client.js';

/** A lookup's query, as text for a subgraph elsewhere and parsed once for one in this process. */
interface Lookup {
  text: string;
  document: DocumentNode;
}

const lookupOf = (text: string): Lookup => ({ text, document: parse(text) });
const AUTHENTICATE = lookupOf(`query ($value: String!) {
  _authenticate_personal_api_key(value: $value) { key_id user_id user_uuid scopes }
}`);
const MEMBERSHIPS = lookupOf(`query ($user_id: Int!) {
  _actor_memberships(user_id: $user_id) { organizations { id level } }
}`);

interface KeyIdentity {
  key_id: string;
  user_id: number;
  user_uuid: string;
  scopes: string[];
}
interface Memberships {
  organizations: { id: string; level: number }[];
}

/**
 * How long a resolved key is trusted before it is looked up again. A key revoked, rolled or
 * rescoped is announced on the pub/sub (see `follow`) and dropped at once; where no announcement
 * can come (a router run alone without Redis, a key removed by a command-line tool), this bounds it.
 */
export const AUTH_CACHE_MS = 1000;
/**
 * How old an entry may be before a request that uses it has the key looked up again in the
 * background: a key in steady use then never waits for the lookup's two subgraph calls. Late in
 * the entry's life, so that a busy key costs about one lookup a second, as it did without this.
 */
export const REFRESH_AFTER_MS = (AUTH_CACHE_MS * 3) / 4;
const MAX_CACHED_KEYS = 10_000;

interface CachedKey {
  actor: Promise<Actor>;
  /** When the lookup that answered it started, plus AUTH_CACHE_MS. */
  expires: number;
  /** The key's user once the lookup has answered (null: a key of no user); undefined while it runs. */
  userId?: number | null;
  /** Whether a lookup to replace this entry is running. */
  refreshing?: boolean;
}

/**
 * What an Authorization header carries: no key (undefined: anonymous), a malformed one (null), or
 * a key with its hash, the cache's key. A graphql-ws connection reads it once: its header and
 * connection params never change, and its key is checked again at every event it delivers.
 */
export type Credential = { key: undefined } | { key: null } | { key: string; cacheKey: string };

/** The credential of an Authorization header value (a Bearer key, hashed once). */
export function credentialOf(authorization: string | null | undefined): Credential {
  const key = authorization ? bearerCredential(authorization) : undefined;
  if (key === undefined || key === null) return { key };
  return { key, cacheKey: sha256Hex(key) };
}

/**
 * Turns `Authorization: Bearer <personal key>` into an actor, asking the accounts subgraph who owns
 * the key and the projects subgraph what the user may reach. Results are cached briefly, by the
 * key's hash (never the key), and concurrent misses for one key share a single lookup.
 */
export class Authenticator {
  private readonly cache = new Map<string, CachedKey>();

  private readonly local: Partial<Record<string, LocalSubgraph>>;
  private readonly clock: () => number;

  /**
   * @param options.local the subgraphs of this process: asked directly, as the router's own
   *   operations are, rather than over HTTP (two requests through Apollo's pipeline a lookup).
   * @param options.clock the time, for tests.
   */
  constructor(
    private readonly signer: ActorSigner,
    private readonly urls: { accounts: string; projects: string },
    options: { local?: Partial<Record<string, LocalSubgraph>>; clock?: () => number } = {},
  ) {
    this.local = options.local ?? {};
    this.clock = options.clock ?? Date.now;
  }

  /**
   * The actor for an Authorization header value; anonymous without one, or with a scheme other
   * than Bearer (`Basic …`), which PostHog does not read as carrying a key either.
   */
  actorFor(authorization: string | null | undefined): Promise<Actor> {
    return this.actorOf(credentialOf(authorization));
  }

  /** The actor for a credential read once ({@link credentialOf}): a connection's, checked again at every event. */
  actorOf(credential: Credential): Promise<Actor> {
    if (credential.key === undefined) return Promise.resolve(ANONYMOUS);
    if (credential.key === null) return Promise.reject(new AuthenticationFailedError());
    const { key, cacheKey } = credential;
    const now = this.clock();
    const hit = this.cache.get(cacheKey);
    if (hit && hit.expires > now) {
      if (hit.expires - now <= AUTH_CACHE_MS - REFRESH_AFTER_MS) this.refresh(cacheKey, key, hit, now);
      return hit.actor;
    }
    const actor = this.lookup(key);
    this.remember(cacheKey, actor, now);
    return actor;
  }

  /**
   * Looks a key in use up again before its entry expires. Requests go on with the entry meanwhile,
   * which is never older than AUTH_CACHE_MS, as without the refresh; the answer replaces it only if
   * nothing dropped the entry in between (a change announced for the key or its user may have come
   * after the lookup read). A key no longer valid is dropped at once; a lookup that failed otherwise
   * (a subgraph down) leaves the entry to expire, and the next request to try again.
   */
  private refresh(cacheKey: string, key: string, entry: CachedKey, now: number): void {
    if (entry.refreshing || entry.userId === undefined) return;
    entry.refreshing = true;
    this.lookup(key).then(
      (actor) => {
        if (this.cache.get(cacheKey) === entry) this.remember(cacheKey, Promise.resolve(actor), now);
      },
      (error: unknown) => {
        entry.refreshing = false;
        if (error instanceof AuthenticationFailedError && this.cache.get(cacheKey) === entry) this.cache.delete(cacheKey);
      },
    );
  }

  /**
   * Drops what is cached of each key announced as changed (revoked, rolled, rescoped) by any process
   * on this pub/sub, so that the change holds at once here rather than within AUTH_CACHE_MS.
   */
  async follow(pubsub: PubSub): Promise<void> {
    // An announcement lost with the pub/sub's connection may have been a revocation.
    const changes = resubscribing<KeyChange>(pubsub, KEY_CHANGES_TOPIC, () => this.cache.clear());
    await pubsub.ready();
    void (async () => {
      for await (const { payload } of changes) {
        if ('hash' in payload) this.cache.delete(payload.hash);
        else this.forgetUser(payload.user_id);
      }
    })().catch(() => undefined);
  }

  /** Drops every key of a user, and every lookup still running (it may have read the old memberships). */
  private forgetUser(userId: number): void {
    for (const [cacheKey, entry] of this.cache) {
      if (entry.userId === undefined || entry.userId === userId) this.cache.delete(cacheKey);
    }
  }

  private remember(cacheKey: string, actor: Promise<Actor>, now: number): void {
    if (this.cache.size >= MAX_CACHED_KEYS) {
      for (const [entryKey, entry] of this.cache) if (entry.expires <= now) this.cache.delete(entryKey);
      if (this.cache.size >= MAX_CACHED_KEYS) this.cache.clear();
    }
    const entry: CachedKey = { actor, expires: now + AUTH_CACHE_MS };
    this.cache.set(cacheKey, entry);
    actor.then(
      (resolved) => {
        entry.userId = resolved.user?.id ?? null;
      },
      // A failed lookup (subgraph down) must not be remembered as an answer.
      () => {
        if (this.cache.get(cacheKey) === entry) this.cache.delete(cacheKey);
      },
    );
  }

  private async lookup(key: string): Promise<Actor> {
    if (!key.startsWith('phx_')) throw new AuthenticationFailedError();
    const { _authenticate_personal_api_key: identity } = await this.ask<{ _authenticate_personal_api_key: KeyIdentity | null }>('accounts', AUTHENTICATE, {
      value: key,
    });
    if (!identity) throw new AuthenticationFailedError();
    const { _actor_memberships: memberships } = await this.ask<{ _actor_memberships: Memberships }>('projects', MEMBERSHIPS, { user_id: identity.user_id });
    return {
      kind: 'personal_api_key',
      user: { id: identity.user_id, uuid: identity.user_uuid },
      key_id: identity.key_id,
      scopes: identity.scopes,
      organizations: Object.fromEntries(memberships.organizations.map((o) => [o.id, o.level])),
    };
  }

  /** One lookup, as the service: in this process when the subgraph runs here, else over HTTP. */
  private async ask<T>(subgraph: 'accounts' | 'projects', lookup: Lookup, variables: Record<string, unknown>): Promise<T> {
    const local = this.local[subgraph];
    if (!local) return callSubgraph<T>(this.urls[subgraph], this.signer.sign(SERVICE), lookup.text, variables);
    const result = await local.execute({ document: lookup.document, variables }, SERVICE);
    if (result.errors?.length || !result.data) throw new Error(`subgraph call failed: ${result.errors?.[0]?.message ?? 'no data'}`);
    return result.data as T;
  }
}

/**
 * Whether `after` may reach less than `before`: a scope it no longer has (unless it now has `*`), or
 * an organization it left or holds at a lower level. What was started under `before` must stop.
 */
export function narrowedAccess(before: Actor, after: Actor): boolean {
  const scopes = new Set(after.scopes);
  const lostScope = !scopes.has('*') && before.scopes.some((scope) => !scopes.has(scope));
  return lostScope || Object.entries(before.organizations).some(([id, level]) => (after.organizations[id] ?? -1) < level);
}
