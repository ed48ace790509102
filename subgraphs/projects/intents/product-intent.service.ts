import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/auth/actor.js';
import { ValidationError } from '../../shared/errors.js';
import { SettingsService, type SettingsTarget } from '../settings/settings.service.js';
import type { Environment } from '../environments/environment.entity.js';
import { PRODUCT_TYPES, ProductIntent } from './product-intent.entity.js';
import type { ProductIntentRecord } from './product-intent.record.js';

const MAX_CONTEXT_LENGTH = 200;

export interface IntentInput {
  product_type: string;
  intent_context?: string | null;
}

export class ProductIntentService {
  constructor(private readonly em: EntityManager) {}

  /**
   * `add_product_intent` records the intent; `complete_product_onboarding` also marks the product
   * in the `has_completed_onboarding_for` setting (a logged settings change).
   */
  async apply(actor: Actor, target: SettingsTarget, action: 'add' | 'complete', input: IntentInput): Promise<void> {
    if (action === 'add') {
      await this.add(target.environment, input.product_type, input.intent_context);
      return;
    }
    await this.completeOnboarding(target.environment, input.product_type);
    const completed = (target.environment.settings.has_completed_onboarding_for as Record<string, boolean> | null | undefined) ?? {};
    new SettingsService(this.em).change(actor, target, { has_completed_onboarding_for: { ...completed, [input.product_type]: true } }, ['has_completed_onboarding_for']);
  }

  /** Records (or counts again) an intent for a product; `context` says where it was expressed. */
  async add(environment: Environment, productType: string, context?: string | null): Promise<ProductIntent> {
    const intent = await this.intent(environment, productType);
    const key = (context ?? '').trim().slice(0, MAX_CONTEXT_LENGTH) || 'unspecified';
    intent.contexts = { ...intent.contexts, [key]: (intent.contexts[key] ?? 0) + 1 };
    intent.updated_at = new Date();
    return intent;
  }

  async completeOnboarding(environment: Environment, productType: string): Promise<ProductIntent> {
    const intent = await this.intent(environment, productType);
    intent.onboarding_completed_at ??= new Date();
    return intent;
  }

  /** Intents of several environments at once (for lists of records), by environment id. */
  async byEnvironment(ids: number[]): Promise<Map<number, ProductIntentRecord[]>> {
    const intents = ids.length > 0 ? await this.em.find(ProductIntent, { environment: { $in: ids } }, { orderBy: { id: 'asc' } }) : [];
    const grouped = new Map<number, ProductIntentRecord[]>(ids.map((id) => [id, []]));
    for (const intent of intents) grouped.get(intent.environment.id)?.push(toRecord(intent));
    return grouped;
  }

  private async intent(environment: Environment, productType: string): Promise<ProductIntent> {
    if (!(PRODUCT_TYPES as readonly string[]).includes(productType)) {
      throw new ValidationError(`"${productType}" is not a valid choice.`, 'product_type', 'invalid_choice');
    }
    const existing = await this.em.findOne(ProductIntent, { environment, product_type: productType });
    if (existing) return existing;
    const created = Object.assign(new ProductIntent(), { environment, product_type: productType });
    this.em.persist(created);
    return created;
  }
}

function toRecord(intent: ProductIntent): ProductIntentRecord {
  const { product_type, contexts, created_at, updated_at, onboarding_completed_at } = intent;
  return { product_type, contexts, created_at, updated_at, onboarding_completed_at };
}
