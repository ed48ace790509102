import type { RestRoute } from '../route-table.js';

/** What `/batch/` stored, on PostHog's read paths (under both of its prefixes). */
const reads: [string, RestRoute['field'], string, string][] = [
  ['events', 'Query.events', 'List events', "Events, newest first: `event`, `distinct_id`, `after`, `before`; `next` follows the page's last event."],
  ['events/:id', 'Query.event', 'Retrieve an event', 'One event, by its uuid.'],
  ['persons', 'Query.persons', 'List persons', 'Persons, newest first: `distinct_id`, `search`.'],
  ['persons/:id', 'Query.person', 'Retrieve a person', 'One person, by its uuid.'],
  ['groups', 'Query.groups', 'List groups of one type', 'Groups of one type (`group_type_index`, required), newest first: `search`.'],
  ['groups/find', 'Query.group', 'Find a group by type and key', 'One group, by `group_type_index` and `group_key`.'],
];

export const ingestionRoutes: RestRoute[] = reads.map(([path, field, summary, description]) => ({
  method: 'GET',
  path: `/environments/:project_id/${path}`,
  aliases: [`/projects/:project_id/${path}`],
  field,
  summary,
  description,
}));

/** PostHog's event list is `{next, results}`: the cursor alone is for GraphQL callers. */
export const ingestionHiddenFields = ['EventList.next_cursor'];
