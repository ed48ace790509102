import { openApiDocument, personalApiKeyScheme } from '../../shared/openapi/openapi.document.js';
import { errorResponses } from '../../shared/openapi/openapi.errors.js';
import type { HogQLType } from '../hogql/compile/hogql.compiler.js';
import type { Endpoint } from '../endpoints/endpoint.entity.js';
import type { DeclaredVariable, PreparedQuery, VariableType } from '../queries/query.node.js';
import { compileForCheck } from '../queries/query.runner.js';
import { trendsVariables } from '../runs/trends.run.js';

type Schema = Record<string, unknown>;

/** JSON Schema of a result column, by the type the compiler inferred; every value may be null. */
const COLUMN_SCHEMAS: Record<HogQLType, Schema> = {
  String: { type: 'string' },
  Integer: { type: 'integer' },
  Float: { type: 'number' },
  Boolean: { type: 'boolean' },
  DateTime: { type: 'string', format: 'date-time' },
  Date: { type: 'string', format: 'date' },
  UUID: { type: 'string', format: 'uuid' },
  JSON: { type: 'string', description: 'JSON text' },
  Array: { type: 'array', items: {} },
  Tuple: { type: 'array', items: {} },
  Null: { type: 'string' },
  Unknown: {},
};

const VARIABLE_SCHEMAS: Record<VariableType, Schema> = {
  String: { type: 'string' },
  Number: { type: 'number' },
  Boolean: { type: 'boolean' },
  List: { type: 'array', items: { type: 'string' } },
  Date: { type: 'string', format: 'date' },
};

const PROPERTY_OPERATORS = ['exact', 'is_not', 'icontains', 'not_icontains', 'regex', 'not_regex', 'gt', 'gte', 'lt', 'lte', 'is_set', 'is_not_set', 'is_date_exact', 'is_date_before', 'is_date_after', 'between', 'not_between', 'min', 'max', 'in', 'not_in'];

/**
 * PostHog's per-endpoint OpenAPI 3.0.3 document: one `POST` of the run path (under `projects`, as
 * PostHog's), its request with the query's variables typed, and its answer with the result
 * columns typed as the compiler inferred them.
 */
export function endpointOpenApi(endpoint: Endpoint, prepared: PreparedQuery, materialized: boolean): Record<string, unknown> {
  const variables = variablesSchema(prepared, materialized);
  const columns = compileForCheck(prepared).columns;
  const path = `/api/projects/${endpoint.environment_id}/endpoints/${endpoint.name}/run`;
  return openApiDocument({
    info: { title: endpoint.name, description: endpoint.description || `PostHog Endpoint: ${endpoint.name}`, version: String(endpoint.current_version) },
    paths: {
      [path]: {
        post: {
          operationId: `run_${endpoint.name.replace(/-/g, '_')}`,
          summary: `Run ${endpoint.name}`,
          description: endpoint.description || undefined,
          security: [{ PersonalAPIKey: [] }],
          requestBody: {
            required: variables.required !== undefined,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/EndpointRunRequest' } } },
          },
          responses: {
            200: { description: 'The query result.', content: { 'application/json': { schema: { $ref: '#/components/schemas/EndpointRunResponse' } } } },
            ...errorResponses([400, 401, 403, 404, 405, 429], {
              400: 'Bad input (a variable, a limit) or a query that failed.',
              401: 'No valid personal API key.',
              403: 'The key lacks the `endpoint:read` scope, or has no access to the project.',
              404: 'No such endpoint, or it is inactive.',
            }),
          },
        },
      },
    },
    securitySchemes: { PersonalAPIKey: personalApiKeyScheme('A personal API key with the endpoint:read scope.') },
    schemas: {
      EndpointRunRequest: runRequestSchema(),
      Variables: variables,
      DashboardFilter: dashboardFilterSchema(),
      PropertyFilter: propertyFilterSchema(),
      EndpointRunResponse: prepared.kind === 'TrendsQuery' ? trendsResponseSchema() : runResponseSchema(columns),
    },
  });
}

function runRequestSchema(): Schema {
  return {
    type: 'object',
    properties: {
      client_query_id: { type: 'string', description: 'A query id of yours, for tracking.' },
      filters_override: { $ref: '#/components/schemas/DashboardFilter' },
      // Defaults are said, not declared: generators (openapi-typescript) make a property with a `default` required.
      refresh: { type: 'string', enum: ['cache', 'force', 'direct'], description: '`cache` (the default): a fresh cached result, else computed; `force`: computed; `direct`: the live query of a materialized endpoint.' },
      version: { type: 'integer', description: 'The version to run (default: the latest).' },
      limit: { type: 'integer', minimum: 1 },
      debug: { type: 'boolean', description: 'Keep the diagnostic keys in the answer (default false).' },
      variables: { $ref: '#/components/schemas/Variables' },
    },
  };
}

function variablesSchema(prepared: PreparedQuery, materialized: boolean): Schema {
  if (prepared.kind === 'TrendsQuery') {
    const [breakdown] = trendsVariables(prepared.node).filter((name) => name !== 'date_from' && name !== 'date_to');
    const properties: Record<string, Schema> = {};
    if (breakdown) properties[breakdown] = { type: 'string', description: 'Only this breakdown value.' };
    if (!materialized) Object.assign(properties, { date_from: { type: 'string', example: '-7d' }, date_to: { type: 'string' } });
    return { type: 'object', additionalProperties: false, properties, ...(breakdown && materialized ? { required: [breakdown] } : {}) };
  }
  const properties = Object.fromEntries(prepared.variables.map((variable) => [variable.code_name, variableSchema(variable)]));
  const required = prepared.variables.filter((variable) => variable.value === undefined).map((variable) => variable.code_name);
  return { type: 'object', additionalProperties: false, properties, ...(required.length > 0 ? { required } : {}) };
}

function variableSchema(variable: DeclaredVariable): Schema {
  return { ...VARIABLE_SCHEMAS[variable.type], ...(variable.value === undefined ? {} : { example: variable.value }) };
}

function runResponseSchema(columns: { name: string; type: HogQLType }[]): Schema {
  const listing = columns.map((column, index) => `${index + 1}. \`${column.name}\` (${column.type})`).join('; ');
  const distinct = [...new Map(columns.map((column) => [JSON.stringify(COLUMN_SCHEMAS[column.type]), COLUMN_SCHEMAS[column.type]])).values()];
  return {
    type: 'object',
    required: ['results', 'columns'],
    properties: {
      results: {
        type: 'array',
        description: 'The rows, each an array of the columns in order.',
        items: {
          type: 'array',
          description: `Columns: ${listing}.`,
          minItems: columns.length,
          maxItems: columns.length,
          items: distinct.length === 1 ? nullable(distinct[0]!) : { anyOf: distinct.map(nullable) },
        },
      },
      columns: { type: 'array', items: { type: 'string', enum: columns.map((column) => column.name) }, example: columns.map((column) => column.name) },
      types: { type: 'array', items: { type: 'array', items: { type: 'string' } } },
      hasMore: { type: 'boolean' },
      limit: { type: 'integer' },
      offset: { type: 'integer' },
      is_cached: { type: 'boolean' },
      last_refresh: { type: 'string', format: 'date-time' },
      endpoint_version: { type: 'integer' },
      endpoint_version_created_at: { type: 'string', format: 'date-time' },
    },
    'x-columns': columns.map((column) => ({ name: column.name, type: column.type, schema: COLUMN_SCHEMAS[column.type] })),
  };
}

/** A TrendsQuery answers PostHog's series, whatever its columns. */
function trendsResponseSchema(): Schema {
  const strings = { type: 'array', items: { type: 'string' } };
  return {
    type: 'object',
    required: ['results'],
    properties: {
      results: {
        type: 'array',
        items: {
          type: 'object',
          required: ['label', 'count', 'data', 'labels', 'days'],
          properties: {
            action: { type: 'object', additionalProperties: true },
            label: { type: 'string' },
            count: { type: 'number' },
            data: { type: 'array', items: { type: 'number' } },
            labels: strings,
            days: strings,
            breakdown_value: { type: 'string', nullable: true },
          },
        },
      },
      is_cached: { type: 'boolean' },
      last_refresh: { type: 'string', format: 'date-time' },
      endpoint_version: { type: 'integer' },
      endpoint_version_created_at: { type: 'string', format: 'date-time' },
    },
  };
}

/** A column's schema with null allowed: OpenAPI 3.0 has `nullable` only beside a `type` (an untyped schema takes null already). */
function nullable(schema: Schema): Schema {
  return schema.type ? { ...schema, nullable: true } : schema;
}

function dashboardFilterSchema(): Schema {
  return {
    type: 'object',
    properties: {
      date_from: { type: 'string', nullable: true },
      date_to: { type: 'string', nullable: true },
      properties: { type: 'array', items: { $ref: '#/components/schemas/PropertyFilter' }, nullable: true },
    },
  };
}

function propertyFilterSchema(): Schema {
  return {
    type: 'object',
    required: ['key'],
    properties: {
      key: { type: 'string' },
      // Untyped: any value, null included.
      value: {},
      operator: { type: 'string', enum: PROPERTY_OPERATORS },
      type: { type: 'string', enum: ['event', 'person', 'session', 'cohort', 'group', 'hogql'] },
    },
  };
}
