/**
 * Scope objects a personal API key can be granted, each with `:read` and `:write`
 * (API document section 5; `activity_log` is PostHog's object for project activity; `query`,
 * `person` and `group` are PostHog's objects for reading events, persons and groups).
 */
export const SCOPE_OBJECTS = [
  'activity_log',
  'batch_export',
  'conversation',
  'customer_profile_config',
  'endpoint',
  'group',
  'llm_analytics',
  'llm_provider_key',
  'organization',
  'person',
  'project',
  'query',
  'user',
] as const;

export type ScopeObject = (typeof SCOPE_OBJECTS)[number];
export type Scope = `${ScopeObject}:${'read' | 'write'}`;

/** Marks operations for internal use: never satisfied by a personal API key, not even `*`. */
export const INTERNAL = 'INTERNAL';
export const ALL_SCOPES = '*';

/** What `@Authorized(...)` accepts. */
export type RequiredScope = Scope | typeof INTERNAL | typeof ALL_SCOPES;

export const KNOWN_SCOPES: readonly string[] = [
  ALL_SCOPES,
  ...SCOPE_OBJECTS.flatMap((object) => [`${object}:read`, `${object}:write`]),
];

export function isKnownScope(scope: string): boolean {
  return KNOWN_SCOPES.includes(scope);
}

/** Whether `granted` satisfies `required`: `*` grants every non-internal scope, `x:write` grants `x:read`. */
export function grants(granted: readonly string[], required: RequiredScope): boolean {
  if (required === INTERNAL) return granted.includes(INTERNAL);
  if (granted.includes(ALL_SCOPES) || granted.includes(required)) return true;
  if (required === ALL_SCOPES) return false;
  const [object, action] = required.split(':');
  return action === 'read' && granted.includes(`${object}:write`);
}
