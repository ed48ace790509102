import type { EntityManager } from '@mikro-orm/postgresql';
import { MembershipLevel, type Actor } from '../../shared/auth/actor.js';
import { randomBase62 } from '../../shared/crypto.js';
import { requireOrganization } from '../../shared/subgraph/access.js';
import { SettingsService, type SettingsTarget } from './settings.service.js';

/**
 * The public token of the support-conversations widget, kept in the `conversations_settings`
 * setting (`widget_public_token`), as PostHog keeps it. Generating one is an admin's change and
 * is logged like any setting (with the token masked).
 */
export class ConversationsService {
  constructor(private readonly em: EntityManager) {}

  generatePublicToken(actor: Actor, target: SettingsTarget): void {
    requireOrganization(actor, target.organizationId, MembershipLevel.admin, 'You must be an admin of the organization to change its tokens.');
    const current = (target.environment.settings.conversations_settings as Record<string, unknown> | null | undefined) ?? {};
    const conversations_settings = { ...current, widget_public_token: randomBase62(32) };
    new SettingsService(this.em).change(actor, target, { conversations_settings }, ['conversations_settings']);
  }
}
