import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/auth/actor.js';
import { ValidationError } from '../../shared/errors.js';
import { EnvironmentService } from '../environments/environment.service.js';
import { SETTING_NAMES } from './setting.spec.js';
import { effectiveSettings, isSetting } from './settings.js';

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
    const environment = await new EnvironmentService(this.em).entity(actor, args);
    const settings: Record<string, unknown> = effectiveSettings(environment.settings, SETTING_NAMES);
    for (const { field, action, before } of await this.firstChangesAfter(args.id, at)) {
      settings[field] = action === 'created' ? null : before;
    }
    const keys = (args.scope ?? []).flatMap((item) => item.split(',')).map((key) => key.trim()).filter(Boolean);
    if (keys.length === 0) return settings;
    return Object.fromEntries(keys.map((key) => [key, isSetting(key) ? settings[key] : null]));
  }

  private firstChangesAfter(environmentId: number, at: Date): Promise<{ field: string; action: string; before: unknown }[]> {
    return this.em.getConnection().execute(FIRST_CHANGES_AFTER, [SETTING_NAMES, environmentId, at]);
  }
}

/**
 * Undoing the changes after `at` newest first leaves each setting at the `before` of its oldest
 * change after `at`: one probe of the (environment, field, time) index per setting, however long
 * the history after `at` is.
 */
const FIRST_CHANGES_AFTER = `
  select f.field, c.action, c.before
    from unnest(array[?]::text[]) as f(field)
    cross join lateral (
      select action, before
        from projects.setting_changes
       where environment_id = ? and field = f.field and created_at > ?
       order by created_at, log_id, position
       limit 1
    ) c`;

/** An ISO 8601 instant; one without a zone is UTC. */
export function instant(text: string): Date {
  const normalised = text.trim().replace(' ', 'T');
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(normalised) || normalised.length === 10 ? normalised : `${normalised}Z`;
  const parsed = ISO_8601.test(normalised) ? new Date(zoned) : new Date(NaN);
  if (Number.isNaN(parsed.getTime())) throw new ValidationError('Invalid datetime format. Use ISO8601 (e.g., 2025-11-24T12:34:56Z).', 'at', 'invalid');
  return parsed;
}
