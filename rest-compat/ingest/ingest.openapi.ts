import { errorResponses, type OpenApiObject } from '../../subgraphs/shared/openapi/openapi.errors.js';

/** `POST /batch/` in the OpenAPI document: it is no SOFA route, so it is described here. */
export const batchPath: OpenApiObject = {
  post: {
    operationId: 'batch_create',
    summary: 'Ingest a batch of events (historical imports and normal capture)',
    tags: ['capture'],
    description:
      'The `{ingest_url}` of the API document (section 4.9): PostHog capture shapes (an envelope, a list of events, or one event), JSON, gzip (`Content-Encoding: gzip`, `?compression=gzip-js`, or gzip bytes) or form data (`data`). Authenticated by the project API key in the body, not a personal key. All or nothing: one bad event is a 400 naming it (`attr` `batch__<index>__<field>`), and nothing is stored. With `historical_migration`, every event must be at least 48 hours old. Events are known by `uuid` (or one derived from their content): a retried batch stores nothing twice.',
    // The project API key travels in the body (`api_key`), where OpenAPI 3.0 has no security scheme.
    security: [],
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['batch'],
            properties: {
              api_key: { type: 'string', description: 'The project API key (`phc_…`); `token` is read too.' },
              historical_migration: { type: 'boolean', default: false },
              sent_at: { type: 'string', format: 'date-time', description: "When the client sent the batch: corrects the events' times for its clock (normal ingestion; a historical batch keeps its times)." },
              batch: {
                type: 'array',
                minItems: 1,
                items: {
                  type: 'object',
                  required: ['event', 'timestamp'],
                  properties: {
                    event: { type: 'string', maxLength: 200 },
                    distinct_id: { type: 'string', maxLength: 200, description: 'Required: here, as `$distinct_id`, or in `properties`. A number is taken as its text (up to 2^53).' },
                    timestamp: { type: 'string', format: 'date-time' },
                    uuid: { type: 'string', format: 'uuid' },
                    properties: { type: 'object', additionalProperties: true },
                    $set: { type: 'object', additionalProperties: true },
                    $set_once: { type: 'object', additionalProperties: true },
                  },
                },
              },
            },
          },
        },
      },
    },
    responses: {
      '200': {
        description: 'Stored (the answer comes after the commit).',
        content: { 'application/json': { schema: { type: 'object', properties: { status: { type: 'string', enum: ['Ok'] } } } } },
      },
      ...errorResponses([400, 401, 405, 408, 413], {
        400: 'Bad input: `attr` names the event and field (`batch__3__timestamp`).',
        401: 'No project API key, or one no project has (`missing_api_key`, `invalid_api_key`).',
        408: 'The body stopped arriving for 15 seconds (`request_timeout`).',
        413: 'Body over `MAX_INGEST_BODY_BYTES` (20 MiB by default), compressed or once inflated (`request_too_large`), or an event whose properties pass 1 MiB (`event_too_large`, `attr` naming it).',
      }),
    },
  },
};
