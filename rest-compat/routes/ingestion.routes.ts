import type { RestRoute } from '../route-table.js';

/** What `/batch/` stored, on PostHog's read paths (under both of its prefixes). */
const reads: [string, RestRoute['field'], string][] = [
  ['events', 'Query.events', "Events, newest first: `event`, `distinct_id`, `after`, `before`; `next` follows the page's last event."],
  ['events/:id', 'Query.event', 'One event, by its uuid.'],
  ['persons', 'Query.persons', 'Persons, newest first: `distinct_id`, `search`.'],
  ['persons/:id', 'Query.person', 'One person, by its uuid.'],
  ['groups', 'Query.groups', 'Groups of one type (`group_type_index`, required), newest first: `search`.'],
  ['groups/find', 'Query.group', 'One group, by `group_type_index` and `group_key`.'],
];

export const ingestionRoutes: RestRoute[] = reads.map(([path, field, description]) => ({
  method: 'GET',
  path: `/environments/:project_id/${path}`,
  aliases: [`/projects/:project_id/${path}`],
  field,
  description,
}));

/** PostHog's event list is `{next, results}`: the cursor alone is for GraphQL callers. */
export const ingestionHiddenFields = ['EventList.next_cursor'];
