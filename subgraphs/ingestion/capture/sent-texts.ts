/** Where a batch's events are in a JSON text: the text itself, its `batch`, or the text as one event. */
export type EventsPath = 'array' | 'batch' | 'single';

/** The members of an event whose text is stored as sent: its properties, and the top-level sets merged into them. */
export const SENT_MEMBERS = ['properties', '$set', '$set_once'] as const;

/** An event's SENT_MEMBERS as their text came (a member it does not have is left out). */
export type SentTexts = Partial<Record<(typeof SENT_MEMBERS)[number], string>>;

/**
 * The text of each event's SENT_MEMBERS, as it was sent, found in a JSON text that `JSON.parse`
 * has already accepted (so it is well formed); an event that is no object has none. The last of
 * repeated keys counts, as it does for `JSON.parse` and jsonb. Stored as sent, properties keep
 * what parsing loses: integers past 2^53, `1.50`, exponents past a double's range (refused then).
 */
export function sentTexts(text: string, path: EventsPath): SentTexts[] {
  const start = skipSpace(text, 0);
  if (path === 'single') return [membersOf(text, start, SENT_MEMBERS)];
  let texts: SentTexts[] = [];
  if (path === 'array') eventsIn(text, start, texts);
  else {
    // The envelope's members are walked once, its batch's events as they come.
    eachMember(text, start, (key, value) => {
      if (key !== 'batch') return valueEnd(text, value);
      texts = [];
      return eventsIn(text, value, texts);
    });
  }
  return texts;
}

/**
 * The members of an object's text (an object's text as sent), each value's text by its key; of a
 * repeated key, the last value at the first one's place, as `JSON.parse` reads it.
 */
export function objectMembers(objectText: string): Map<string, string> {
  const members = new Map<string, string>();
  const at = skipSpace(objectText, 0);
  if (objectText[at] !== '{') return members;
  eachMember(objectText, at, (key, value) => {
    const end = valueEnd(objectText, value);
    members.set(key, objectText.slice(value, end));
    return end;
  });
  return members;
}

/** Adds the SENT_MEMBERS of each event of the list at `at` (if it is one) to `texts`; answers where the list ends. */
function eventsIn(text: string, at: number, texts: SentTexts[]): number {
  if (text[at] !== '[') return valueEnd(text, at);
  let cursor = skipSpace(text, at + 1);
  if (text[cursor] === ']') return cursor + 1;
  for (;;) {
    const found: SentTexts = {};
    texts.push(found);
    cursor = skipSpace(text, text[cursor] === '{' ? eachMember(text, cursor, keep(text, SENT_MEMBERS, found)) : valueEnd(text, cursor));
    if (text[cursor] !== ',') return cursor + 1;
    cursor = skipSpace(text, cursor + 1);
  }
}

/** The texts of the members named, of the object whose text starts at `at` (none when it is no object). */
function membersOf<Name extends string>(text: string, at: number, names: readonly Name[]): Partial<Record<Name, string>> {
  const found: Partial<Record<Name, string>> = {};
  if (text[at] === '{') eachMember(text, at, keep(text, names, found));
  return found;
}

/** A visitor of members that keeps the text of those named in `found`. */
function keep<Name extends string>(text: string, names: readonly Name[], found: Partial<Record<Name, string>>): MemberVisitor {
  return (key, value) => {
    const end = valueEnd(text, value);
    if ((names as readonly string[]).includes(key)) found[key as Name] = text.slice(value, end);
    return end;
  };
}

/** Called with a member's key and where its value starts; answers where the value ends. */
type MemberVisitor = (key: string, value: number) => number;

/** Visits each member of the object at `at`, in order; answers where the object ends. */
function eachMember(text: string, at: number, visit: MemberVisitor): number {
  let cursor = skipSpace(text, at + 1);
  if (text[cursor] === '}') return cursor + 1;
  for (;;) {
    const keyEnd = stringEnd(text, cursor);
    const value = skipSpace(text, skipSpace(text, keyEnd) + 1);
    cursor = skipSpace(text, visit(keyOf(text, cursor, keyEnd), value));
    if (text[cursor] !== ',') return cursor + 1;
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
