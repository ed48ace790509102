import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { requireUserId } from '../../shared/subgraph/access.js';
import type { Actor } from '../../shared/auth/actor.js';
import { keyChange, KEY_CHANGES_TOPIC } from '../../shared/auth/key-changes.js';
import { isKnownScope } from '../../shared/auth/scopes.js';
import { generateToken, maskSecret } from '../../shared/crypto.js';
import { NotFoundError, ValidationError } from '../../shared/errors.js';
import type { PubSub } from '../../shared/pubsub/pubsub.js';
import { tokenHash } from '../../shared/secrets.js';
import { isUuid, refuseNulls } from '../../shared/validation.js';
import { User } from '../users/user.entity.js';
import type { CreatePersonalApiKeyArgs } from './personal-api-key.inputs.js';
import { NewPersonalApiKey } from './new-personal-api-key.type.js';
import { PersonalApiKey } from './personal-api-key.entity.js';

export const MAX_KEYS_PER_USER = 10;
/** The pseudo-id of the key that authenticates the request. */
export const CURRENT_KEY = '@current';
const MAX_LABEL_LENGTH = 40;
/** `last_used_at` is written at most this often per key, so authentication rarely writes. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** Who a key belongs to, as the router needs it to build the actor. */
export interface KeyIdentity {
  key_id: string;
  user_id: number;
  user_uuid: string;
  scopes: string[];
}

export class PersonalApiKeyService {
  /** With the subgraph's pub/sub, keys revoked, rolled or rescoped are announced to the routers. */
  constructor(
    private readonly em: EntityManager,
    private readonly pubsub?: PubSub,
  ) {}

  list(actor: Actor): Promise<PersonalApiKey[]> {
    return this.em.find(PersonalApiKey, { user: requireUserId(actor) }, { orderBy: { created_at: 'desc', id: 'asc' } });
  }

  /** One of the caller's keys; `@current` names the key of this request, as in PostHog. */
  async get(actor: Actor, id: string): Promise<PersonalApiKey> {
    const keyId = id === CURRENT_KEY ? actor.key_id : id;
    const key = keyId && isUuid(keyId) ? await this.em.findOne(PersonalApiKey, { id: keyId, user: requireUserId(actor) }) : null;
    if (!key) throw new NotFoundError();
    return key;
  }

  /** A new label or new scopes; new scopes hold at once. */
  async update(actor: Actor, id: string, changes: { label?: string | null; scopes?: string[] | null }): Promise<PersonalApiKey> {
    const key = await this.get(actor, id);
    refuseNulls(changes, ['label', 'scopes']);
    if (changes.label != null) key.label = validLabel(changes.label);
    if (changes.scopes != null) key.scopes = validScopes(changes.scopes);
    await this.em.flush();
    if (changes.scopes != null) await this.announce(key.secure_value);
    return key;
  }

  /**
   * A new value for a key, with its label and scopes: the old value stops working at once (within
   * the router's one-second cache), and the new one is in this answer only.
   */
  async roll(actor: Actor, id: string): Promise<NewPersonalApiKey> {
    const key = await this.get(actor, id);
    const previous = key.secure_value;
    const value = generateToken('phx_');
    Object.assign(key, { secure_value: tokenHash(value), mask_value: maskSecret(value), last_used_at: null });
    await this.em.flush();
    await this.announce(previous);
    return { ...key, value };
  }

  async create(actor: Actor, args: CreatePersonalApiKeyArgs): Promise<NewPersonalApiKey> {
    const userId = requireUserId(actor);
    const label = validLabel(args.label);
    const scopes = validScopes(args.scopes);
    const value = generateToken('phx_');
    const key = await this.em.transactional(async (em) => {
      // Locking the user row serialises concurrent creations, so the limit holds under a burst.
      const user = await em.findOneOrFail(User, userId, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if ((await em.count(PersonalApiKey, { user })) >= MAX_KEYS_PER_USER) {
        throw new ValidationError(
          `You can only have ${MAX_KEYS_PER_USER} personal API keys. Remove an existing key before creating a new one.`,
        );
      }
      const created = Object.assign(new PersonalApiKey(), {
        user,
        label,
        scopes,
        secure_value: tokenHash(value),
        mask_value: maskSecret(value),
      });
      em.persist(created);
      return created;
    });
    return { ...key, value };
  }

  /**
   * A new key, as `npm run bootstrap` asks on each run: the values printed before keep working (a
   * tool may hold them). At the user's limit, the oldest key with this label and these scopes
   * makes room, so that however often a tool asks, it never meets the limit.
   */
  async createReplacingOldest(actor: Actor, args: CreatePersonalApiKeyArgs): Promise<NewPersonalApiKey> {
    const userId = requireUserId(actor);
    const wanted = [...new Set(args.scopes)].sort().join(' ');
    return this.em.transactional(async (em) => {
      // The user's row lock, as in create: two concurrent callers must not both pass the limit.
      await em.findOneOrFail(User, userId, { lockMode: LockMode.PESSIMISTIC_WRITE });
      if ((await em.count(PersonalApiKey, { user: userId })) >= MAX_KEYS_PER_USER) {
        const labelled = await em.find(PersonalApiKey, { user: userId, label: validLabel(args.label) }, { orderBy: { created_at: 'asc', id: 'asc' } });
        const oldest = labelled.find((key) => [...key.scopes].sort().join(' ') === wanted);
        if (oldest) await em.remove(oldest).flush();
      }
      return new PersonalApiKeyService(em).create(actor, args);
    });
  }

  /** Revokes a key: requests with it fail at once, its open subscriptions close before their next event. */
  async delete(actor: Actor, id: string): Promise<void> {
    const key = await this.get(actor, id);
    await this.em.removeAndFlush(key);
    await this.announce(key.secure_value);
  }

  /**
   * Tells the routers that a key no longer means what they may have cached (its change is saved:
   * see `PubSub.publish`). Without a pub/sub (a command-line tool), their cache expires within a second.
   */
  private async announce(secureValue: string): Promise<void> {
    await this.pubsub?.publish(KEY_CHANGES_TOPIC, keyChange(secureValue));
  }

  /** The identity behind a presented key, or null. Only the key's hash is looked up. */
  async authenticate(value: string): Promise<KeyIdentity | null> {
    const key = await this.em.findOne(
      PersonalApiKey,
      { secure_value: tokenHash(value), user: { is_active: true } },
      { populate: ['user'] },
    );
    if (!key) return null;
    const now = Date.now();
    if (!key.last_used_at || now - key.last_used_at.getTime() >= LAST_USED_RESOLUTION_MS) {
      await this.em.nativeUpdate(PersonalApiKey, { id: key.id }, { last_used_at: new Date(now) });
    }
    return { key_id: key.id, user_id: key.user.id, user_uuid: key.user.uuid, scopes: key.scopes };
  }
}

/** The scopes of a key, each known (`*` or `<object>:<read|write>`), without repeats. */
function validScopes(given: string[]): string[] {
  if (given.length === 0) throw new ValidationError('This list may not be empty.', 'scopes', 'empty');
  const unknown = given.find((scope) => !isKnownScope(scope));
  if (unknown !== undefined) throw new ValidationError(`Invalid scope: ${unknown}`, 'scopes');
  return [...new Set(given)];
}

function validLabel(given: string): string {
  const label = given.trim();
  if (!label) throw new ValidationError('This field may not be blank.', 'label', 'blank');
  if (label.length > MAX_LABEL_LENGTH) {
    throw new ValidationError(`Ensure this field has no more than ${MAX_LABEL_LENGTH} characters.`, 'label', 'max_length');
  }
  return label;
}
