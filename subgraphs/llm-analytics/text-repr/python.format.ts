/**
 * Python renderings the text representation reproduces: `str()` / `repr()` of JSON values, `json.dumps` (default
 * `ensure_ascii=True`, separators `, ` / `: `, or `indent`), float `repr`, `format(x, '.Nf')` and `{:,}`.
 * The writers stop early when capped (a 500-character repr of a 2 MB object costs 500 characters of work) and stop
 * recursing at MAX_NESTING levels, printing `[...]` / `{...}`.
 */
import { MAX_NESTING } from './text-repr.constants.js';
import { codePointLength, sliceCodePoints } from './code-points.js';
import { isObject } from './json.guards.js';
import { NotJsonSerializableError, PyDict, PyFloat, PyOpaque, PyTuple } from './python.values.js';

/** Output buffer that ignores writes once more than `limit` UTF-16 units were written. */
class Out {
  readonly parts: string[] = [];
  size = 0;

  constructor(readonly limit: number) {}

  get full(): boolean {
    return this.size > this.limit;
  }

  /** UTF-16 units still worth writing (one past the limit, so that callers can tell the text was cut). */
  get room(): number {
    return this.limit - this.size + 1;
  }

  add(text: string): void {
    if (this.size > this.limit) return;
    this.parts.push(text);
    this.size += text.length;
  }

  text(): string {
    return this.parts.join('');
  }
}

/** Units to write so that at least `codePoints + 1` code points are available to cut from. */
function unitsFor(codePoints: number): number {
  return 2 * (codePoints + 1);
}

// ---------------------------------------------------------------------------------------------------------------
// Numbers

/** Python's float `repr`: shortest round-trip digits, exponent form below 1e-4 and from 1e16 on. */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  // toExponential() without an argument gives the shortest digits that round-trip, as Python's repr does.
  const [mantissa = '0', exponentText = '0'] = Math.abs(x).toExponential().split('e');
  const digits = mantissa.replace('.', '');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const e = String(Math.abs(exponent)).padStart(2, '0');
    return `${sign}${m}e${exponent < 0 ? '-' : '+'}${e}`;
  }
  if (exponent < 0) return `${sign}0.${'0'.repeat(-exponent - 1)}${digits}`;
  if (digits.length <= exponent + 1) return `${sign}${digits}${'0'.repeat(exponent + 1 - digits.length)}.0`;
  return `${sign}${digits.slice(0, exponent + 1)}.${digits.slice(exponent + 1)}`;
}

/**
 * Python's `repr`/`str` of a JSON number. JSON parsed by JavaScript cannot tell `2.0` from `2`, so integral values
 * print as Python ints (`2`); others as Python floats (`0.1`, `1e-05`).
 */
export function pyNumberRepr(x: number): string {
  if (Number.isInteger(x)) return Number.isSafeInteger(x) ? String(x) : BigInt(x).toString();
  return pyFloatRepr(x);
}

/**
 * Python's `format(x, '.{digits}f')`: rounds the exact binary value half to even (JavaScript's toFixed rounds
 * exact ties up: 0.125 -> "0.13" where Python prints "0.12").
 */
export function pyFixed(x: number, digits: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (!Number.isFinite(x)) return x > 0 ? 'inf' : '-inf';
  const negative = x < 0 || Object.is(x, -0);
  const ax = Math.abs(x);
  let body: string;
  if (ax >= 1e21) {
    // toFixed switches to exponent form here; such doubles are integers.
    body = BigInt(ax).toString() + (digits > 0 ? `.${'0'.repeat(digits)}` : '');
  } else if (!nearTie(ax, digits)) {
    body = ax.toFixed(digits);
  } else {
    // 100 digits show whether the exact value is a tie at `digits` (a double near a tie differs far sooner).
    const exact = ax.toFixed(100);
    const dot = exact.indexOf('.');
    if (/^50*$/.test(exact.slice(dot + 1 + digits))) {
      let kept = BigInt(exact.slice(0, dot) + exact.slice(dot + 1, dot + 1 + digits));
      if (kept % 2n === 1n) kept += 1n;
      const text = kept.toString().padStart(digits + 1, '0');
      body = digits > 0 ? `${text.slice(0, -digits)}.${text.slice(-digits)}` : text;
    } else {
      body = ax.toFixed(digits);
    }
  }
  return negative ? `-${body}` : body;
}

/**
 * Cheap filter for the exact tie check of pyFixed (toFixed(100) is slow): an exact tie scales to a fraction of
 * exactly one half, give or take the rounding of the multiplication; beyond 2^52 the fraction is not visible.
 */
function nearTie(ax: number, digits: number): boolean {
  const scaled = ax * 10 ** digits;
  return scaled >= 2 ** 52 || Math.abs(scaled - Math.floor(scaled) - 0.5) < 1e-6;
}

/** Python's `format(n, ',')` for an integer. */
export function withThousands(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** Python's `type(value).__name__` for a JSON value (the shared kit's). */
export { pythonTypeName as pyTypeName } from '../../shared/validation.js';

// ---------------------------------------------------------------------------------------------------------------
// repr / str

// Characters Python's repr escapes besides quotes and backslash: categories C* and Z* except the ASCII space.
const REPR_ESCAPE = /[\\'"\p{C}\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/gu;

/** Python's `repr()` of a string (quote choice, `\n`, `\xNN`, `\uNNNN`, `\UNNNNNNNN`); `maxUnits` cuts the input. */
export function pyStrRepr(text: string, maxUnits = Infinity): string {
  // The quote choice depends on the whole string, even when only a prefix is printed.
  const quote = text.includes("'") && !text.includes('"') ? '"' : "'";
  const body = text.length > maxUnits ? text.slice(0, maxUnits) : text;
  return quote + body.replace(REPR_ESCAPE, (ch) => reprEscape(ch, quote)) + quote;
}

function reprEscape(ch: string, quote: string): string {
  switch (ch) {
    case '\\':
      return '\\\\';
    case "'":
    case '"':
      return ch === quote ? `\\${ch}` : ch;
    case '\n':
      return '\\n';
    case '\r':
      return '\\r';
    case '\t':
      return '\\t';
  }
  const cp = ch.codePointAt(0) ?? 0;
  if (cp < 0x100) return `\\x${cp.toString(16).padStart(2, '0')}`;
  if (cp < 0x10000) return `\\u${cp.toString(16).padStart(4, '0')}`;
  return `\\U${cp.toString(16).padStart(8, '0')}`;
}

function reprInto(value: unknown, out: Out, depth: number): void {
  if (out.full) return;
  if (value === null || value === undefined) return out.add('None');
  switch (typeof value) {
    case 'boolean':
      return out.add(value ? 'True' : 'False');
    case 'number':
      return out.add(pyNumberRepr(value));
    case 'bigint':
      return out.add(value.toString());
    case 'string':
      return out.add(pyStrRepr(value, out.room));
  }
  if (Array.isArray(value)) {
    if (depth >= MAX_NESTING) return out.add('[...]');
    out.add('[');
    for (let i = 0; i < value.length && !out.full; i++) {
      if (i > 0) out.add(', ');
      reprInto(value[i], out, depth + 1);
    }
    return out.add(']');
  }
  if (isObject(value)) {
    if (depth >= MAX_NESTING) return out.add('{...}');
    out.add('{');
    let first = true;
    for (const key of Object.keys(value)) {
      if (out.full) break;
      if (!first) out.add(', ');
      first = false;
      out.add(pyStrRepr(key, out.room));
      out.add(': ');
      reprInto(value[key], out, depth + 1);
    }
    return out.add('}');
  }
  out.add(String(value));
}

/** Python's `repr()` of a JSON value. */
export function pyRepr(value: unknown): string {
  const out = new Out(Infinity);
  reprInto(value, out, 0);
  return out.text();
}

/** Python's `str()`: strings as they are, everything else as `repr()` (`None`, `True`, `{'a': 1}`). */
export function pyStr(value: unknown): string {
  return typeof value === 'string' ? value : pyRepr(value);
}

/** `repr(value)[:max]` plus `...` when the repr is longer (Python's fallback of content extraction). */
export function pyReprCapped(value: unknown, max: number): string {
  const out = new Out(unitsFor(max));
  reprInto(value, out, 0);
  return capWithEllipsis(out.text(), max);
}

/** `text[:max] + "..."` when the text has more than `max` code points. */
export function capWithEllipsis(text: string, max: number): string {
  if (text.length <= max) return text;
  return codePointLength(text) > max ? `${sliceCodePoints(text, max)}...` : text;
}

// ---------------------------------------------------------------------------------------------------------------
// json.dumps

// Python's ensure_ascii escapes everything outside printable ASCII.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const JSON_ESCAPE = /[\\"\x00-\x1f\x7f-\uffff]/g;
const JSON_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

/** A JSON string literal as Python writes it with `ensure_ascii=True`; `maxUnits` cuts the input. */
export function pyJsonString(text: string, maxUnits = Infinity): string {
  const body = text.length > maxUnits ? text.slice(0, maxUnits) : text;
  return `"${body.replace(JSON_ESCAPE, jsonEscape)}"`;
}

function jsonEscape(ch: string): string {
  return JSON_ESCAPES[ch] ?? `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

function jsonFloat(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  return pyFloatRepr(x);
}

interface JsonLayout {
  indent: number | null;
  itemSeparator: string;
}

function jsonInto(value: unknown, out: Out, layout: JsonLayout, level: number): void {
  if (out.full) return;
  if (value === null || value === undefined) return out.add('null');
  switch (typeof value) {
    case 'boolean':
      return out.add(value ? 'true' : 'false');
    case 'number':
      return out.add(Number.isInteger(value) ? pyNumberRepr(value) : jsonFloat(value));
    case 'bigint':
      return out.add(value.toString());
    case 'string':
      return out.add(pyJsonString(value, out.room));
  }
  if (value instanceof PyFloat) return out.add(jsonFloat(value.value));
  if (value instanceof PyOpaque) throw new NotJsonSerializableError(`Object of type ${value.kind} is not JSON serializable`);
  if (Array.isArray(value) || value instanceof PyTuple) {
    const items = Array.isArray(value) ? (value as unknown[]) : value.items;
    if (items.length === 0) return out.add('[]');
    if (level >= MAX_NESTING) return out.add('[...]');
    out.add('[');
    for (let i = 0; i < items.length && !out.full; i++) {
      if (i > 0) out.add(layout.itemSeparator);
      newline(out, layout, level + 1);
      jsonInto(items[i], out, layout, level + 1);
    }
    newline(out, layout, level);
    return out.add(']');
  }
  let entries: Iterable<[string, unknown]>;
  let empty: boolean;
  if (value instanceof PyDict) {
    if (!value.jsonKeysOnly) throw new NotJsonSerializableError('keys must be str, int, float, bool or None');
    entries = value.entries;
    empty = value.entries.length === 0;
  } else if (isObject(value)) {
    const keys = Object.keys(value);
    entries = keys.map((key): [string, unknown] => [key, value[key]]);
    empty = keys.length === 0;
  } else {
    return out.add(pyJsonString(String(value)));
  }
  if (empty) return out.add('{}');
  if (level >= MAX_NESTING) return out.add('{...}');
  out.add('{');
  let first = true;
  for (const [key, item] of entries) {
    if (out.full) break;
    if (!first) out.add(layout.itemSeparator);
    first = false;
    newline(out, layout, level + 1);
    out.add(pyJsonString(key, out.room));
    out.add(': ');
    jsonInto(item, out, layout, level + 1);
  }
  newline(out, layout, level);
  out.add('}');
}

function newline(out: Out, layout: JsonLayout, level: number): void {
  if (layout.indent !== null) out.add(`\n${' '.repeat(layout.indent * level)}`);
}

/**
 * Python's `json.dumps(value)` (separators `, ` and `: `) or, with `indent`, `json.dumps(value, indent=n)`
 * (separators `,` and `: `); non-ASCII escaped as `\uXXXX`. Throws NotJsonSerializableError for sets, bytes and
 * complex numbers of the literal reader.
 */
export function pyJsonDumps(value: unknown, indent: number | null = null): string {
  const out = new Out(Infinity);
  jsonInto(value, out, { indent, itemSeparator: indent === null ? ', ' : ',' }, 0);
  return out.text();
}

/** `json.dumps(value)[:max]`, writing little more than `max` characters however large the value. */
export function pyJsonDumpsPrefix(value: unknown, max: number): string {
  const out = new Out(unitsFor(max));
  jsonInto(value, out, { indent: null, itemSeparator: ', ' }, 0);
  return sliceCodePoints(out.text(), max);
}

/** `json.dumps(value)`, then `[:max] + "..."` when longer. */
export function pyJsonDumpsCapped(value: unknown, max: number): string {
  const out = new Out(unitsFor(max));
  jsonInto(value, out, { indent: null, itemSeparator: ', ' }, 0);
  return capWithEllipsis(out.text(), max);
}
