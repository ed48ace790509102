/** The ClickHouse types a value is bound as: every value of a printed query is a typed parameter. */
type ScalarType = 'String' | 'Int64' | 'Float64' | 'Bool';
export type ClickHouseParamType = ScalarType | `Array(${ScalarType})` | `Array(Nullable(${ScalarType}))`;

/**
 * The values of a query printed for ClickHouse, each written `{pN:Type}` and sent apart from the
 * SQL (ClickHouse's query parameters): user text never reaches the SQL. Equal values of one type
 * share a name, so that two spellings of one expression print the same SQL (GROUP BY needs it).
 */
export class ClickHouseParams {
  private readonly values: Record<string, unknown> = {};
  private readonly names = new Map<string, string>();

  bind(value: unknown, type: ClickHouseParamType): string {
    const plain = sendable(value);
    const key = `${type}:${JSON.stringify(plain)}`;
    let name = this.names.get(key);
    if (name === undefined) {
      name = `p${this.names.size + 1}`;
      this.names.set(key, name);
      this.values[name] = plain;
    }
    return `{${name}:${type}}`;
  }

  /** The values by name, as the client's `query_params`. */
  get all(): Record<string, unknown> {
    return { ...this.values };
  }
}

/** A value as the client sends it: big integers as their digits, times as ISO 8601 text. */
function sendable(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(sendable);
  return value;
}
