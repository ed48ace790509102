/**
 * A property of JSON text as HogQL reads one (PostHog's semantics): a string's content, a number
 * or boolean as written, an object or array as its JSON; NULL when absent or JSON null. `at` is
 * the JSON functions' arguments: the text, then the keys to the value (`properties, '$browser'`).
 * The HogQL printer reads properties with it, and a materialized property column is defined by it,
 * so that reading the column answers exactly what reading the JSON answers.
 */
export function jsonPropertySql(at: string): string {
  return `if(JSONType(${at}) = 'String', JSONExtractString(${at}), nullIf(nullIf(JSONExtractRaw(${at}), ''), 'null'))`;
}
