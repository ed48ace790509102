/** drf-spectacular's action suffix of an operationId, by method (PostHog's ids). */
const ACTIONS: Record<string, string> = { get: 'retrieve', post: 'create', put: 'update', patch: 'partial_update', delete: 'destroy' };

/**
 * PostHog's operationId (drf-spectacular's rule): the path's literal segments after `/api/`
 * joined with `_`, then the action: `list` for a GET that answers a list, else by method. So
 * `GET /api/environments/{project_id}/conversations/` is `environments_conversations_list`, and the
 * same operation under `/api/projects/` has its own `projects_…` id.
 */
export function operationIdOf(path: string, method: string, answersList: boolean): string {
  const tokens = path
    .replace(/^\/api\//, '')
    .split('/')
    .filter((segment) => segment && !segment.startsWith('{'))
    .map((segment) => segment.replace(/[^A-Za-z0-9_]/g, '_'));
  const action = method === 'get' && answersList ? 'list' : ACTIONS[method]!;
  return [...tokens, action].join('_');
}

/**
 * PostHog's tag (its schema's post-processing hook): the first literal segment after a parent
 * lookup (`/api/environments/{project_id}/`, `/api/organizations/{organization_id}/`), or else
 * after `/api/`. A record's own actions (`/api/environments/{id}/reset_token/`) keep the record's
 * tag, so each area has one.
 */
export function tagOf(path: string): string {
  const found = /^\/api\/(?:(?:organizations|projects|environments)\/\{[a-z_]*_id\}\/)?([A-Za-z0-9_-]+)\//.exec(path);
  if (!found) throw new Error(`no tag for ${path}`);
  return found[1]!;
}
