import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/auth/actor.js';
import { MembershipLevel } from '../../shared/auth/actor.js';
import { requireOrganization } from '../../shared/subgraph/access.js';
import { grants } from '../../shared/auth/scopes.js';
import { ForbiddenError, ValidationError } from '../../shared/errors.js';
import { refuseNulls } from '../../shared/validation.js';
import { ActivityLogService } from '../activity/activity-log.service.js';
import type { Environment } from '../environments/environment.entity.js';
import type { Project } from '../projects/project.entity.js';
import type { SettingName } from './setting.catalog.js';
import { changedSettings, effectiveSettings, validateSettings, type SettingChange } from './settings.js';

const MAX_NAME_LENGTH = 200;

/**
 * Settings an admin must change (with `project:write`): the rest are the configuration that the
 * document lets a `project:read` key change, as PostHog does for "team config" fields.
 */
const ADMIN_FIELDS = new Set(['name', 'access_control', 'is_demo']);

export interface SettingsTarget {
  scope: 'Project' | 'Team';
  project: Project;
  environment: Environment;
  organizationId: string;
}

export class SettingsService {
  constructor(private readonly em: EntityManager) {}

  /**
   * Validates and writes a name and settings, and logs what changed (before, after) in the same
   * flush as the change. Nothing is written when anything is invalid or not allowed.
   */
  change(actor: Actor, target: SettingsTarget, input: Record<string, unknown>, names: readonly SettingName[]): SettingChange[] {
    refuseNulls(input, ['name']);
    const written = validateSettings(input, names);
    const name = input.name === undefined ? undefined : validName(String(input.name));
    this.requireRights(actor, target.organizationId, [...Object.keys(written), ...(name === undefined ? [] : ['name'])]);

    const named = target.scope === 'Project' ? target.project : target.environment;
    const before = { ...effectiveSettings(target.environment.settings, names), name: named.name };
    const changes = changedSettings(before, { ...written, ...(name === undefined ? {} : { name }) } as never);
    if (changes.length === 0) return [];

    if (name !== undefined) named.name = name;
    target.environment.settings = { ...target.environment.settings, ...written };
    new ActivityLogService(this.em).record(actor, {
      organization_id: target.organizationId,
      project_id: target.project.id,
      environment_id: target.scope === 'Team' || target.project.id === target.environment.id ? target.environment.id : null,
      scope: target.scope,
      activity: 'updated',
      item_name: named.name,
      changes: changes.map((change) => ({ type: target.scope, action: 'changed', ...change })),
    });
    return changes;
  }

  private requireRights(actor: Actor, organizationId: string, fields: string[]): void {
    if (!fields.some((field) => ADMIN_FIELDS.has(field))) return;
    if (!grants(actor.scopes, 'project:write')) throw new ForbiddenError("API key missing required scope 'project:write'");
    requireOrganization(actor, organizationId, MembershipLevel.admin, 'You must be an admin of the organization to change this.');
  }
}

export function validName(value: string): string {
  const name = value.trim();
  if (!name) throw new ValidationError('This field may not be blank.', 'name', 'blank');
  if (name.length > MAX_NAME_LENGTH) throw new ValidationError(`Ensure this field has no more than ${MAX_NAME_LENGTH} characters.`, 'name', 'max_length');
  return name;
}
