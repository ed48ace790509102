import { ForeignKeyConstraintViolationException, type EntityManager } from '@mikro-orm/postgresql';
import { requireUserId } from '../../shared/subgraph/access.js';
import type { Actor, EnvironmentPlacement } from '../../shared/auth/actor.js';
import { maskSecret } from '../../shared/crypto.js';
import { NotFoundError, ValidationError } from '../../shared/errors.js';
import { pageWindow, toPage, type Page } from '../../shared/subgraph/pagination.js';
import { secretBox } from '../../shared/secrets.js';
import { isUuid, refuseNulls } from '../../shared/validation.js';
import { projectsFacade } from '../../projects/facade.js';
import { checkKey } from '../providers/key-check.js';
import type { Provider } from '../providers/provider.catalog.js';
import type { KeyVerdict } from '../providers/provider.errors.js';
import { ActiveProviderKey } from './active-provider-key.entity.js';
import { openSealed, UNREADABLE_KEY } from './active-keys.query.js';
import { ProviderKey } from './provider-key.entity.js';
import type { CreateProviderKeyArgs, ListProviderKeysArgs, UpdateProviderKeyArgs, ValidateKeyArgs } from './provider-key.inputs.js';
import type { ProviderKeyRecord } from './provider-key.record.js';
import { validApiKey, validName, validProvider } from './provider-key.rules.js';
import { readPage } from '../../shared/db/find-page.js';

/** Every rule of provider keys; each method is scoped to an environment the actor reaches. */
export class ProviderKeyService {
  constructor(private readonly em: EntityManager) {}

  async list(actor: Actor, args: ListProviderKeysArgs): Promise<Page<ProviderKeyRecord>> {
    const environment = await this.environment(actor, args.project_id);
    const window = pageWindow(args);
    const [keys, count] = await readPage(
      this.em,
      ProviderKey,
      { environment_id: environment.id },
      { orderBy: { created_at: 'desc', id: 'asc' }, limit: window.limit, offset: window.offset },
    );
    return toPage(await this.records(environment.id, keys), count, window);
  }

  async get(actor: Actor, environmentId: number, id: string): Promise<ProviderKeyRecord> {
    return this.record(await this.find(actor, environmentId, id));
  }

  /** Checks the key with the provider first: a key that fails is a 400 on `api_key`, and nothing is stored. */
  async create(actor: Actor, args: CreateProviderKeyArgs): Promise<ProviderKeyRecord> {
    const environment = await this.environment(actor, args.project_id);
    const provider = validProvider(args.provider);
    const name = validName(args.name);
    const apiKey = validApiKey(provider, args.api_key);
    await requireWorkingKey(provider, apiKey);
    const key = Object.assign(new ProviderKey(), {
      environment_id: environment.id,
      provider,
      name,
      ...sealed(apiKey),
      state: 'ok',
      created_by_id: requireUserId(actor),
    });
    await this.em.transactional(async (em) => {
      em.persist(key);
      if (args.set_as_active) await activate(em, key);
    });
    return this.record(key);
  }

  async update(actor: Actor, args: UpdateProviderKeyArgs): Promise<ProviderKeyRecord> {
    const key = await this.find(actor, args.project_id, args.id);
    refuseNulls(args, ['name', 'api_key', 'provider']);
    if (args.provider != null && validProvider(args.provider) !== key.provider) {
      throw new ValidationError("A key's provider cannot change; create a key for the other provider.", 'provider');
    }
    const name = args.name != null ? validName(args.name) : undefined;
    const apiKey = args.api_key != null ? validApiKey(key.provider, args.api_key, 'This field may not be blank.') : undefined;
    if (apiKey) await requireWorkingKey(key.provider, apiKey);
    await this.em.transactional(async (em) => {
      if (name) key.name = name;
      if (apiKey) Object.assign(key, sealed(apiKey), { state: 'ok', error_message: null });
      if (args.set_as_active === true) {
        if (key.state !== 'ok') {
          throw new ValidationError('Only a key whose last check passed can be active: validate it first.', 'set_as_active', 'key_not_ok');
        }
        await activate(em, key);
      }
      if (args.set_as_active === false) await em.nativeDelete(ActiveProviderKey, { key: key.id });
    });
    return this.record(key);
  }

  async delete(actor: Actor, environmentId: number, id: string): Promise<void> {
    const key = await this.find(actor, environmentId, id);
    await this.em.removeAndFlush(key);
  }

  /** Checks the stored key again and records what the provider said; 200 whatever the verdict. */
  async revalidate(actor: Actor, environmentId: number, id: string): Promise<ProviderKeyRecord> {
    const key = await this.find(actor, environmentId, id);
    const apiKey = openKey(key);
    const verdict = apiKey === null ? { state: 'error' as const, error_message: UNREADABLE_KEY } : await checkKey(key.provider, apiKey);
    Object.assign(key, verdict);
    await this.em.flush();
    return this.record(key);
  }

  /** Checks a key without storing it. */
  async check(actor: Actor, args: ValidateKeyArgs): Promise<KeyVerdict> {
    await this.environment(actor, args.project_id);
    const provider = validProvider(args.provider ?? 'openai');
    return checkKey(provider, validApiKey(provider, args.api_key, 'API key is required.'));
  }

  /** One of the environment's keys, opened, for a call to its provider. */
  async usableKey(actor: Actor, environmentId: number, id: string): Promise<{ key: ProviderKey; apiKey: string }> {
    const key = await this.find(actor, environmentId, id);
    return { key, apiKey: requireReadable(key) };
  }

  /** The environment's active key for a provider, opened, if it has one. */
  environment(actor: Actor, environmentId: number): Promise<EnvironmentPlacement> {
    return projectsFacade.reachEnvironment(this.em, actor, environmentId);
  }

  private async find(actor: Actor, environmentId: number, id: string): Promise<ProviderKey> {
    const environment = await this.environment(actor, environmentId);
    const key = isUuid(id) ? await this.em.findOne(ProviderKey, { id, environment_id: environment.id }) : null;
    if (!key) throw new NotFoundError();
    return key;
  }

  private async record(key: ProviderKey): Promise<ProviderKeyRecord> {
    return (await this.records(key.environment_id, [key]))[0]!;
  }

  private async records(environmentId: number, keys: ProviderKey[]): Promise<ProviderKeyRecord[]> {
    const active = new Set(
      (await this.em.find(ActiveProviderKey, { environment_id: environmentId }, { fields: ['key'] })).map((row) => row.key.id),
    );
    return keys.map((key) => ({
      id: key.id,
      provider: key.provider,
      name: key.name,
      state: key.state,
      error_message: key.error_message,
      api_key_masked: key.api_key_masked,
      set_as_active: active.has(key.id),
      created_at: key.created_at,
      created_by: key.created_by_id === null ? null : { id: key.created_by_id },
      last_used_at: key.last_used_at,
    }));
  }
}


/** The key in clear, or null when it was sealed under another SECRET_KEY (or the row was tampered with). */
function openKey(key: ProviderKey): string | null {
  return openSealed(key.api_key_sealed);
}

/** The key in clear for a call, or a 400 that says why it cannot be used. */
function requireReadable(key: ProviderKey): string {
  const apiKey = openKey(key);
  if (apiKey === null) throw new ValidationError(`${key.name}: ${UNREADABLE_KEY}`, 'api_key', 'key_unreadable');
  return apiKey;
}

function sealed(apiKey: string): Pick<ProviderKey, 'api_key_sealed' | 'api_key_masked'> {
  return { api_key_sealed: secretBox().seal(apiKey), api_key_masked: maskSecret(apiKey) };
}

/** A key the provider does not accept is a 400 on `api_key` with the provider's verdict (PostHog's code: `invalid_input`). */
async function requireWorkingKey(provider: Provider, apiKey: string): Promise<void> {
  const verdict = await checkKey(provider, apiKey);
  if (verdict.state !== 'ok') throw new ValidationError(verdict.error_message ?? 'Invalid API key', 'api_key');
}

/** Makes the key the active one of its environment for its provider (replacing any other); 404 if it was deleted meanwhile. */
async function activate(em: EntityManager, key: ProviderKey): Promise<void> {
  try {
    await em.flush();
    await em.upsert(
      ActiveProviderKey,
      { environment_id: key.environment_id, provider: key.provider, key: key.id, updated_at: new Date() },
      { onConflictFields: ['environment_id', 'provider'], onConflictAction: 'merge', onConflictMergeFields: ['key', 'updated_at'] },
    );
  } catch (error) {
    if (error instanceof ForeignKeyConstraintViolationException) throw new NotFoundError();
    throw error;
  }
}
