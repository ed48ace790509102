import { Authorized, Field, Int } from 'type-graphql';
import { JSONScalar } from '../../shared/subgraph/scalars.js';
import { SETTINGS, type SettingKind, type SettingName, type SettingSpec } from './setting.catalog.js';

const GRAPHQL_TYPES: Record<SettingKind, () => unknown> = {
  boolean: () => Boolean,
  string: () => String,
  int: () => Int,
  strings: () => [String],
  json: () => JSONScalar,
};

export const spec = (name: SettingName): SettingSpec => SETTINGS[name] as SettingSpec;

/** Whether a setting may hold null. */
export const nullable = (name: SettingName): boolean => spec(name).schema.safeParse(null).success;

/**
 * Declares one GraphQL field per setting on a record or arguments class, from the settings table:
 * the type follows the setting's kind; on records each field needs `project:read`; as arguments
 * every setting is optional (absent means unchanged). A `basic` record is reachable only through
 * root fields that need `project:read` already, so its fields are plain properties.
 */
export function declareSettingFields(target: Function, names: readonly SettingName[], role: 'record' | 'basic' | 'arguments'): void {
  for (const name of names) {
    const { kind, description } = spec(name);
    const options = { nullable: role === 'arguments' || nullable(name), description };
    Field(GRAPHQL_TYPES[kind] as () => never, options)(target.prototype, name);
    if (role === 'record') Authorized('project:read')(target.prototype, name);
  }
}
