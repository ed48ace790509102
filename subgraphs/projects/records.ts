import type { Actor } from '../shared/auth/actor.js';
import { secretBox } from '../shared/secrets.js';
import type { Environment } from './environments/environment.entity.js';
import type { ProductIntentRecord } from './intents/product-intent.record.js';
import { EnvironmentRecord } from './environments/environment.record.js';
import type { Project } from './projects/project.entity.js';
import { BASIC_SETTING_NAMES, ProjectBasicRecord } from './projects/project-basic.record.js';
import { ProjectRecord } from './projects/project.record.js';
import { PROJECT_SETTING_NAMES, SETTING_NAMES } from './settings/setting.spec.js';
import { effectiveSettings } from './settings/settings.js';

const open = (sealed: string | null) => (sealed === null ? null : secretBox().open(sealed));

/** Adds the token fields, opened only when a caller selects them (a list opens none otherwise). */
function withTokens<T extends object>(record: T, environment: Environment): T {
  return Object.defineProperties(record, {
    api_token: { enumerable: true, get: () => secretBox().open(environment.api_token_sealed) },
    secret_api_token: { enumerable: true, get: () => open(environment.secret_api_token_sealed) },
    secret_api_token_backup: { enumerable: true, get: () => open(environment.secret_api_token_backup_sealed) },
  });
}

/** An environment as callers read it; `organizationId` comes from the actor or the creating call. */
export function environmentRecord(environment: Environment, organizationId: string, actor: Actor, intents: ProductIntentRecord[]): EnvironmentRecord {
  const record = Object.assign(new EnvironmentRecord(), {
    id: environment.id,
    uuid: environment.uuid,
    project_id: environment.project.id,
    organization: organizationId,
    name: environment.name,
    product_intents: intents,
    effective_membership_level: actor.organizations[organizationId] ?? null,
    created_at: environment.created_at,
    updated_at: environment.updated_at,
    ...effectiveSettings(environment.settings, SETTING_NAMES),
  });
  return withTokens(record, environment);
}

/** A project as callers read it: its own fields and its primary environment's tokens and settings. */
export function projectRecord(project: Project, primary: Environment, actor: Actor, intents: ProductIntentRecord[]): ProjectRecord {
  const organizationId = project.organization.id;
  const record = Object.assign(new ProjectRecord(), {
    id: project.id,
    name: project.name,
    uuid: project.uuid,
    organization: organizationId,
    product_intents: intents,
    effective_membership_level: actor.organizations[organizationId] ?? null,
    created_at: project.created_at,
    updated_at: project.updated_at > primary.updated_at ? project.updated_at : primary.updated_at,
    ...effectiveSettings(primary.settings, PROJECT_SETTING_NAMES),
  });
  return withTokens(record, primary);
}

/** A project as the list shows it (PostHog's basic form). */
export function projectBasicRecord(project: Project, primary: Environment): ProjectBasicRecord {
  const record = Object.assign(new ProjectBasicRecord(), {
    id: project.id,
    uuid: project.uuid,
    organization: project.organization.id,
    name: project.name,
    ...effectiveSettings(primary.settings, BASIC_SETTING_NAMES),
  });
  return Object.defineProperty(record, 'api_token', { enumerable: true, get: () => secretBox().open(primary.api_token_sealed) });
}
