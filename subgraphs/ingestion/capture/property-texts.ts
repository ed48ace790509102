/** Where a batch's events are in a JSON text: the text itself, its `batch`, or the text as one event. */
export type EventsPath = 'array' | 'batch' | 'single';

/**
 * The text of each event's `properties` value, as it was sent, found in a JSON text that
 * `JSON.parse` has already accepted (so it is well formed); null for an event with no
 * `properties` key. The last of repeated keys counts, as it does for `JSON.parse` and jsonb.
 * Stored as sent, properties keep what parsing loses: integers past 2^53, exponents, spacing.
 * Strings are jumped over with `indexOf`, so a batch of megabytes is walked in milliseconds.
 */
export function propertyTexts(text: string, path: EventsPath): (string | null)[] {
  const start = skipSpace(text, 0);
  if (path === 'single') return [propertiesOf(text, start)];
  const events = path === 'batch' ? memberValue(text, start, 'batch') : start;
  const texts: (string | null)[] = [];
  if (events === null || text[events] !== '[') return texts;
  let at = skipSpace(text, events + 1);
  if (text[at] === ']') return texts;
  for (;;) {
    texts.push(propertiesOf(text, at));
    at = skipSpace(text, valueEnd(text, at));
    if (text[at] !== ',') return texts;
    at = skipSpace(text, at + 1);
  }
}

/** The `properties` text of the object at `at`; null when it has none, or is no object. */
function propertiesOf(text: string, at: number): string | null {
  const value = memberValue(text, at, 'properties');
  return value === null ? null : text.slice(value, valueEnd(text, value));
}

/** Where the value of the object's last member named `name` starts; null if none (or no object). */
function memberValue(text: string, at: number, name: string): number | null {
  if (text[at] !== '{') return null;
  let found: number | null = null;
  let cursor = skipSpace(text, at + 1);
  if (text[cursor] === '}') return null;
  for (;;) {
    const keyEnd = stringEnd(text, cursor);
    const value = skipSpace(text, skipSpace(text, keyEnd) + 1);
    if (keyOf(text, cursor, keyEnd) === name) found = value;
    cursor = skipSpace(text, valueEnd(text, value));
    if (text[cursor] !== ',') return found;
    cursor = skipSpace(text, cursor + 1);
  }
}

/** A key's name: its text, unless escapes must be read. */
function keyOf(text: string, quote: number, end: number): string {
  const raw = text.slice(quote + 1, end - 1);
  return raw.includes('\\') ? (JSON.parse(text.slice(quote, end)) as string) : raw;
}

/** Just past the value that starts at `at`. */
function valueEnd(text: string, at: number): number {
  const first = text[at];
  if (first === '"') return stringEnd(text, at);
  if (first !== '{' && first !== '[') return scalarEnd(text, at);
  let depth = 0;
  let cursor = at;
  for (;;) {
    const char = text.charCodeAt(cursor);
    if (char === QUOTE) cursor = stringEnd(text, cursor);
    else if (char === OPEN_BRACE || char === OPEN_BRACKET) {
      depth++;
      cursor++;
    } else if (--depth === 0) return cursor + 1;
    else cursor++;
    // Up to the next bracket outside a string in one native step, or to a quote where the
    // expression's bounds end (they keep its backtracking within its stack, however long the text).
    INSIDE.lastIndex = cursor;
    INSIDE.test(text);
    cursor = INSIDE.lastIndex;
  }
}

/** Anything but brackets, strings whole (brackets in them too): what lies between a container's brackets. */
const INSIDE = /[^"{}[\]]*(?:"[^"\\]*(?:\\.[^"\\]*){0,256}"[^"{}[\]]*){0,256}/y;

/** Just past the closing quote of the string whose opening quote is at `at`. */
function stringEnd(text: string, at: number): number {
  let quote = text.indexOf('"', at + 1);
  while (escaped(text, quote)) quote = text.indexOf('"', quote + 1);
  return quote + 1;
}

/** Whether the quote at `at` follows an odd run of backslashes. */
function escaped(text: string, at: number): boolean {
  let backslashes = 0;
  while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
  return backslashes % 2 === 1;
}

/** Just past a number, `true`, `false` or `null`. */
function scalarEnd(text: string, at: number): number {
  let cursor = at;
  while (cursor < text.length && !SCALAR_ENDS.has(text.charCodeAt(cursor))) cursor++;
  return cursor;
}

function skipSpace(text: string, at: number): number {
  let cursor = at;
  while (SPACE.has(text.charCodeAt(cursor))) cursor++;
  return cursor;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
/** JSON's whitespace. */
const SPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);
const SCALAR_ENDS = new Set([0x2c, CLOSE_BRACE, CLOSE_BRACKET, ...SPACE]);
