import { HogQLError } from '../hogql.errors.js';

/** The PostgreSQL types a bound value is cast to; every parameter carries one, so none is left untyped. */
export type PgCast =
  | 'text'
  | 'bigint'
  | 'float8'
  | 'numeric'
  | 'boolean'
  | 'timestamptz'
  | 'timestamp'
  | 'date'
  | 'uuid'
  | 'text[]'
  | 'bigint[]'
  | 'float8[]'
  | 'boolean[]';

// A marker no SQL we write contains: user text never reaches the SQL, so nothing else can produce it.
const MARK = '\uE000';
const MARKER = /\uE000(\d+)\uE000/g;

/**
 * Collects the values of a query as bound parameters. A value is written as a marker and numbered
 * at the end, in order of appearance, so that values bound but left out of the SQL (a constant
 * re-bound under another type) take no number, and equal values share one (so that two spellings
 * of one expression print the same SQL, as GROUP BY needs).
 */
export class ParamBinder {
  private readonly values: unknown[] = [];
  private readonly index = new Map<string, number>();

  bind(value: unknown, cast: PgCast): string {
    assertStorable(value);
    const key = `${cast}:${JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? `${item}n` : item))}`;
    let found = this.index.get(key);
    if (found === undefined) {
      found = this.values.length;
      this.values.push(value);
      this.index.set(key, found);
    }
    return `${MARK}${found}${MARK}::${cast}`;
  }

  /** The SQL with $1..$n in place of the markers, and the values in that order. */
  finalize(sql: string): { sql: string; values: unknown[] } {
    const numbers = new Map<number, number>();
    const values: unknown[] = [];
    const numbered = sql.replace(MARKER, (_marker, raw: string) => {
      const found = Number(raw);
      let number = numbers.get(found);
      if (number === undefined) {
        values.push(this.values[found]);
        number = values.length;
        numbers.set(found, number);
      }
      return `$${number}`;
    });
    return { sql: numbered, values };
  }
}

/** PostgreSQL text cannot hold NUL; say so rather than let the database fail. */
function assertStorable(value: unknown): void {
  const strings = Array.isArray(value) ? value : [value];
  if (strings.some((item) => typeof item === 'string' && item.includes('\u0000'))) {
    throw new HogQLError('Strings in a query cannot contain the NUL character.');
  }
}
