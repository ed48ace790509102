import { ValidationError } from '../../../shared/errors.js';
import { EVENT_FILTERS, type ConfigField } from '../destination-config.js';
import { urlTargets } from '../destination-address.js';
import { DestinationError, type Destination } from '../destination.js';
import { isHttpUrl } from '../s3/s3.destination.js';
import { deliverChunks } from './http.delivery.js';
import { answered, post } from './http.post.js';

export const HTTP_FIELDS: readonly ConfigField[] = [
  { name: 'url', type: 'string', required: true, description: 'Where each chunk of events is POSTed.' },
  { name: 'token', type: 'string', required: true, secret: true, description: 'Sent as `Authorization: Bearer <token>` (JSONLines), or as the batch\'s `api_key` (PostHogBatch); write-only.' },
  {
    name: 'body_format',
    type: 'string',
    default: 'JSONLines',
    choices: ['JSONLines', 'PostHogBatch'],
    description: '`JSONLines`: one event a line (`application/x-ndjson`); `PostHogBatch`: PostHog\'s `/batch/` body `{api_key, historical_migration: true, batch}`, which another PostHog (or this platform) takes as it is.',
  },
  ...EVENT_FILTERS,
];

/** Events POSTed in chunks to any URL, each chunk with an `Idempotency-Key`. */
export const httpDestination: Destination = {
  type: 'HTTP',
  fields: HTTP_FIELDS,
  models: ['events'],
  targetFields: ['url'],
  targets: (config) => urlTargets('url', config.url),
  takesQuery: false,
  eventsQuery: 'SELECT uuid, distinct_id, timestamp, event, properties FROM events',
  check(config) {
    if (typeof config.url === 'string' && !isHttpUrl(config.url)) throw new ValidationError(`Invalid destination URL: ${config.url}`, 'destination');
  },
  deliver: deliverChunks,
  testSteps: [
    {
      name: 'Reach the destination',
      description: 'Ensure the URL answers: an empty chunk is sent, and any answer but a server error or a refusal of the token passes.',
      async run(config, signal) {
        const status = await post(config, '', 'batch-export-test', signal);
        if (status >= 500) throw new DestinationError(`${answered(status)}.`, false);
        if (status === 401 || status === 403) throw new DestinationError(`The destination refused the token (${status}): ${answered(status)}.`, false);
      },
    },
  ],
};
