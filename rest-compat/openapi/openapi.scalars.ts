/** The public schema's custom scalars as OpenAPI schemas. */
const SCALARS: Record<string, Record<string, unknown>> = {
  DateTime: { type: 'string', format: 'date-time' },
  SafeInt: { type: 'integer', format: 'int64' },
  // Free-form JSON is any value: settings such as `data_attributes` are lists, `content` objects.
  JSON: {
    anyOf: [{ type: 'object', additionalProperties: true }, { type: 'array', items: {} }, { type: 'string' }, { type: 'number' }, { type: 'boolean' }],
  },
};

/**
 * SOFA's `customScalars`: without them SOFA types a `DateTime` as an object and refers to a `JSON`
 * schema that does not exist. SOFA writes an argument's description into the schema it reads, so
 * each read gets a copy of its own (else one description would end up on every JSON field).
 */
export function scalarSchemas(): Record<string, Record<string, unknown>> {
  return Object.defineProperties(
    {},
    Object.fromEntries(Object.entries(SCALARS).map(([name, schema]) => [name, { enumerable: true, get: () => structuredClone(schema) }])),
  );
}
