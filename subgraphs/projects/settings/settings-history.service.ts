import type { EntityManager } from '@mikro-orm/postgresql';
import { requireEnvironment } from '../../shared/subgraph/access.js';
import { executeBound } from '../../shared/db/bound-query.js';
import type { Actor } from '../../shared/auth/actor.js';
import { NotFoundError, ValidationError } from '../../shared/errors.js';
import { SETTING_NAMES } from './setting.catalog.js';
import { effectiveSettings, isSetting, type Settings } from './settings.js';

export interface SettingsAsOfArgs {
  project_id?: number;
  id: number;
  at: string;
  scope?: string[];
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

export class SettingsHistoryService {
  constructor(private readonly em: EntityManager) {}

  /**
   * An environment's settings as they were at `at`: its current values with every logged change
   * made after `at` undone, newest first. Every change is logged in the transaction that makes it
   * (and changes to one environment are serialised), so the result is exact.
   */
  async asOf(actor: Actor, args: SettingsAsOfArgs): Promise<Record<string, unknown>> {
    const at = instant(args.at);
    const [row] = await executeBound<AsOfRow>(this.em, AS_OF, [at, args.id], 'settings_as_of');
    requireEnvironment(actor, row && { id: args.id, project_id: row.project_id, organization_id: row.organization_id });
    if (args.project_id != null && row!.project_id !== args.project_id) throw new NotFoundError();
    const settings: Record<string, unknown> = effectiveSettings(row!.settings, SETTING_NAMES);
    for (const [field, action, before] of row!.changes) settings[field] = action === 'created' ? null : before;
    const keys = (args.scope ?? []).flatMap((item) => item.split(',')).map((key) => key.trim()).filter(Boolean);
    if (keys.length === 0) return settings;
    return Object.fromEntries(keys.map((key) => [key, isSetting(key) ? settings[key] : null]));
  }
}

interface AsOfRow {
  project_id: number;
  organization_id: string;
  settings: Settings;
  /** `[field, action, before]` of each setting's oldest change after the instant. */
  changes: [string, string, unknown][];
}

/**
 * The setting names as an SQL array, written once: the driver would quote the seventy names on
 * every request. They are the settings table's keys, which are identifiers.
 */
const NAMES_ARRAY = `array[${SETTING_NAMES.map((name) => {
  if (!/^[a-z][a-z0-9_]*$/.test(name)) throw new Error(`setting name ${name} is not an identifier`);
  return `'${name}'`;
}).join(', ')}]::text[]`;

/**
 * The environment (if it exists and is not being deleted) with its organization, current settings
 * and, per setting, its oldest change after the instant, in one statement: undoing the changes after
 * `at` newest first leaves each setting at that change's `before`. One probe of the (environment,
 * field, time) index per setting, however long the history after `at` is.
 */
const AS_OF = `
  select e.project_id, p.organization_id, e.settings,
         coalesce((
           select jsonb_agg(jsonb_build_array(f.field, c.action, c.before))
             from unnest(${NAMES_ARRAY}) as f(field)
             cross join lateral (
               select action, before
                 from projects.setting_changes
                where environment_id = e.id and field = f.field and created_at > ?
                order by created_at, log_id, position
                limit 1
             ) c
         ), '[]'::jsonb) as changes
    from projects.environments e
    join projects.projects p on p.id = e.project_id and p.deleted_at is null
   where e.id = ?`;

/** An ISO 8601 instant; one without a zone is UTC. */
export function instant(text: string): Date {
  const normalised = text.trim().replace(' ', 'T');
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(normalised) || normalised.length === 10 ? normalised : `${normalised}Z`;
  const parsed = ISO_8601.test(normalised) ? new Date(zoned) : new Date(NaN);
  if (Number.isNaN(parsed.getTime())) throw new ValidationError('Invalid datetime format. Use ISO8601 (e.g., 2025-11-24T12:34:56Z).', 'at');
  return parsed;
}
