import type { EntityManager } from '@mikro-orm/postgresql';
import { MembershipLevel, type Actor } from '../shared/auth/actor.js';
import { secretBox } from '../shared/secrets.js';
import type { Environment } from './environments/environment.entity.js';
import { EnvironmentRecord } from './environments/environment.record.js';
import type { GroupTypeRecord } from './group-types/group-type.record.js';
import { GroupTypeService } from './group-types/group-type.service.js';
import type { ProductIntentRecord } from './intents/product-intent.record.js';
import { ProductIntentService } from './intents/product-intent.service.js';
import type { Project } from './projects/project.entity.js';
import { BASIC_SETTING_NAMES, ProjectBasicRecord } from './projects/project-basic.record.js';
import type { ProjectListRow } from './projects/project-list.repository.js';
import { ProjectRecord } from './projects/project.record.js';
import { PROJECT_SETTING_NAMES, SETTING_NAMES } from './settings/setting.catalog.js';
import { effectiveSettings } from './settings/settings.js';

/** What a record shows from other tables: the environment's product intents and its project's group types. */
export interface TeamRelations {
  intents: ProductIntentRecord[];
  groupTypes: GroupTypeRecord[];
}

/** A new project has neither intents nor group types. */
export const NO_RELATIONS: TeamRelations = { intents: [], groupTypes: [] };

/** The relations of several environments, in one query per table. */
export async function teamRelations(em: EntityManager, environments: Environment[]): Promise<(environment: Environment) => TeamRelations> {
  const [intents, groupTypes] = await Promise.all([
    new ProductIntentService(em).byEnvironment(environments.map((environment) => environment.id)),
    new GroupTypeService(em).byProject([...new Set(environments.map((environment) => environment.project.id))]),
  ]);
  return (environment) => ({ intents: intents.get(environment.id) ?? [], groupTypes: groupTypes.get(environment.project.id) ?? [] });
}

const open = (sealed: string | null) => (sealed === null ? null : secretBox().open(sealed));

/** Adds the token fields, opened only when a caller selects them (a list opens none otherwise). */
function withTokens<T extends object>(record: T, environment: Environment): T {
  return Object.defineProperties(record, {
    api_token: { enumerable: true, get: () => secretBox().open(environment.api_token_sealed) },
    secret_api_token: { enumerable: true, get: () => open(environment.secret_api_token_sealed) },
    secret_api_token_backup: { enumerable: true, get: () => open(environment.secret_api_token_backup_sealed) },
  });
}

/** The read-only fields projects and environments share, for the actor and an environment. */
function teamFields(environment: Environment, organizationId: string, actor: Actor, related: TeamRelations) {
  const level = actor.organizations[organizationId] ?? null;
  return {
    product_intents: related.intents,
    effective_membership_level: level,
    // Without per-project access control, a project is open to every member of its organization.
    user_access_level: level !== null && level >= MembershipLevel.admin ? 'admin' : 'member',
    ingested_event: environment.ingested_event,
    has_group_types: related.groupTypes.length > 0,
    group_types: related.groupTypes,
    live_events_token: null,
  };
}

/** An environment as callers read it. */
export function environmentRecord(environment: Environment, organizationId: string, actor: Actor, related: TeamRelations): EnvironmentRecord {
  const record = Object.assign(new EnvironmentRecord(), {
    id: environment.id,
    uuid: environment.uuid,
    project_id: environment.project.id,
    organization: organizationId,
    name: environment.name,
    ...teamFields(environment, organizationId, actor, related),
    created_at: environment.created_at,
    updated_at: environment.updated_at,
    ...effectiveSettings(environment.settings, SETTING_NAMES),
  });
  return withTokens(record, environment);
}

/** A project as callers read it: its own fields and its primary environment's tokens and settings. */
export function projectRecord(project: Project, primary: Environment, actor: Actor, related: TeamRelations): ProjectRecord {
  const organizationId = project.organization.id;
  const record = Object.assign(new ProjectRecord(), {
    id: project.id,
    name: project.name,
    uuid: project.uuid,
    organization: organizationId,
    ...teamFields(primary, organizationId, actor, related),
    created_at: project.created_at,
    updated_at: project.updated_at > primary.updated_at ? project.updated_at : primary.updated_at,
    ...effectiveSettings(primary.settings, PROJECT_SETTING_NAMES),
  });
  return withTokens(record, primary);
}

/**
 * A project as the list shows it (PostHog's basic form), from its list row. Its token is opened
 * at once, unlike a whole record's (`withTokens`): opened tokens are cached, and a getter defined
 * on each of a page's records cost more than making the whole record (test/bench/RESULTS.md),
 * leaving each in V8's slow dictionary form for the fields read after it. A token that does not
 * open (sealed under another SECRET_KEY) still fails only a caller that asks for it.
 */
export function projectBasicRecord(row: ProjectListRow): ProjectBasicRecord {
  let token: string | undefined;
  try {
    token = secretBox().open(row.api_token_sealed);
  } catch {
    token = undefined;
  }
  const record = Object.assign(new ProjectBasicRecord(), {
    id: row.id,
    uuid: row.uuid,
    organization: row.organization_id,
    name: row.name,
    ingested_event: row.ingested_event,
    api_token: token,
    ...effectiveSettings(row.settings, BASIC_SETTING_NAMES),
  });
  if (token !== undefined) return record;
  return Object.defineProperty(record, 'api_token', { enumerable: true, get: () => secretBox().open(row.api_token_sealed) });
}
