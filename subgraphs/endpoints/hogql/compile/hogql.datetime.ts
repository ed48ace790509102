import { zoneSql, type Env } from './hogql.context.js';

/**
 * The date and time texts HogQL turns into dates and times (ClickHouse's best-effort parsing,
 * narrowed to ISO 8601): `2024-01-31`, `2024-01-31 10:00`, `2024-01-31T10:00:00.123456`, each with
 * an optional `Z` or `+02:00`. A text without a zone is a time in the team's zone.
 */
const DATE_TIME =
  /^([1-9]\d{3})-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?:[ T](?:[01]\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d{1,6})?)?(Z|[+-](?:[01]\d|2[0-3])(?::?[0-5]\d)?)?)?$/;

export interface DateTimeText {
  /** The date part, `YYYY-MM-DD`. */
  date: string;
  /** It names its own zone (`Z`, `+02:00`). */
  zoned: boolean;
}

/** Reads a date or date-time text (null when it is none, e.g. February 30th). */
export function readDateTimeText(text: string): DateTimeText | null {
  const match = DATE_TIME.exec(text.trim());
  if (!match) return null;
  const [, year, month, day] = match;
  if (Number(day) > daysInMonth(Number(year), Number(month))) return null;
  return { date: `${year}-${month}-${day}`, zoned: match[4] !== undefined };
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

// The same grammar in PostgreSQL's regular expressions, to read texts the query computes.
const SQL_DATE_TIME =
  "'^\\s*[1-9][0-9]{3}-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])([ T]([01][0-9]|2[0-3]):[0-5][0-9](:[0-5][0-9](\\.[0-9]{1,6})?)?(Z|[+-]([01][0-9]|2[0-3])(:?[0-5][0-9])?)?)?\\s*$'";
const SQL_ZONED = "'(Z|[+-][0-9]{2}(:?[0-9]{2})?)\\s*$'";
const SQL_HAS_TIME = "'^\\s*.{10}[ T]'";

/** SQL: whether a text's day exists in its month (the regular expression allows February 31st). */
function dayExists(textSql: string): string {
  const first = `make_date(substr(btrim(${textSql}), 1, 4)::int, substr(btrim(${textSql}), 6, 2)::int, 1)`;
  return `substr(btrim(${textSql}), 9, 2)::int <= extract(day from ${first} + interval '1 month' - interval '1 day')`;
}

/**
 * SQL: a text read as a timestamptz, NULL when it is no date-time (never an error, as ClickHouse's
 * OrNull parsers). Every cast sits in a CASE branch whose test rules out a failing input (AND does
 * not order its operands, nested CASEs do); PostgreSQL drops a branch whose test folds to false
 * without evaluating it.
 */
export function parseTimestampSql(textSql: string, env: Env): string {
  const zoned = `${textSql} ~ ${SQL_HAS_TIME} AND ${textSql} ~ ${SQL_ZONED}`;
  const cast = `CASE WHEN ${zoned} THEN btrim(${textSql})::timestamptz ELSE (btrim(${textSql})::timestamp AT TIME ZONE ${zoneSql(env)}) END`;
  return whenValid(textSql, cast);
}

/** SQL: the date at the start of a text, NULL when it is no date (ClickHouse's toDateOrNull). */
export function parseDateSql(textSql: string): string {
  return whenValid(textSql, `substr(btrim(${textSql}), 1, 10)::date`);
}

function whenValid(textSql: string, thenSql: string): string {
  return `(CASE WHEN ${textSql} ~ ${SQL_DATE_TIME} THEN CASE WHEN ${dayExists(textSql)} THEN ${thenSql} END END)`;
}
