import type { EntityManager } from '@mikro-orm/postgresql';
import { MembershipLevel, type Actor } from '../../shared/auth/actor.js';
import { generateToken } from '../../shared/crypto.js';
import { requireOrganization } from '../../shared/subgraph/access.js';
import { secretBox, tokenHash } from '../../shared/secrets.js';
import { ActivityLogService } from '../activity/activity-log.service.js';
import type { Environment } from '../environments/environment.entity.js';

export type TokenAction = 'reset_token' | 'rotate_secret_token' | 'delete_secret_token_backup';

export interface TokenTarget {
  scope: 'Project' | 'Team';
  environment: Environment;
  organizationId: string;
  itemName: string;
}

/**
 * The token actions of a project or an environment, for admins. A reset token stops working at
 * once (lookups go by the new hash); a rotated secret keeps the previous one as the backup until
 * it is deleted. The log records that a token changed, with masked values only.
 */
export class TokenService {
  constructor(private readonly em: EntityManager) {}

  apply(actor: Actor, target: TokenTarget, action: TokenAction): void {
    requireOrganization(actor, target.organizationId, MembershipLevel.admin, 'You must be an admin of the organization to change its tokens.');
    const { environment } = target;
    const box = secretBox();
    const open = (sealed: string | null) => (sealed === null ? null : box.open(sealed));
    const before = { api_token: box.open(environment.api_token_sealed), secret_api_token: open(environment.secret_api_token_sealed), secret_api_token_backup: open(environment.secret_api_token_backup_sealed) };
    if (action === 'reset_token') {
      const token = generateToken('phc_', 32);
      environment.api_token_hash = tokenHash(token);
      environment.api_token_sealed = box.seal(token);
    } else if (action === 'rotate_secret_token') {
      environment.secret_api_token_backup_sealed = environment.secret_api_token_sealed;
      environment.secret_api_token_sealed = box.seal(generateToken('phs_', 32));
    } else {
      environment.secret_api_token_backup_sealed = null;
    }
    const after = { api_token: box.open(environment.api_token_sealed), secret_api_token: open(environment.secret_api_token_sealed), secret_api_token_backup: open(environment.secret_api_token_backup_sealed) };
    const changes = (Object.keys(before) as (keyof typeof before)[])
      .filter((field) => before[field] !== after[field])
      .map((field) => ({ type: target.scope, action: 'changed' as const, field, before: before[field], after: after[field] }));
    if (changes.length === 0) return;
    new ActivityLogService(this.em).record(actor, {
      organization_id: target.organizationId,
      project_id: environment.project.id,
      environment_id: environment.id,
      scope: target.scope,
      activity: 'updated',
      item_name: target.itemName,
      changes,
    });
  }
}
