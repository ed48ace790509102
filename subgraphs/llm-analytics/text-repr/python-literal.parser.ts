/**
 * `ast.literal_eval` for span state strings (section 3.5.8): a string state that is a Python literal dict or list
 * (`"{'query': 'x', 'k': 3}"`, as LangChain records them) is shown as indented JSON.
 *
 * Two phases as in Python: parse the whole expression (any syntax error -> not a literal), then convert the tree
 * in Python's order, where a malformed node (a name, a call other than `set()`, `-'x'`) -> not a literal, and an
 * unhashable dict key or set member is Python's TypeError, which PostHog's span formatter reports as
 * `[UNABLE_TO_PARSE: str]`. Values come back as bigint (int), PyFloat, string, boolean, null, arrays (list),
 * PyTuple, PyDict and PyOpaque (set, bytes, complex).
 *
 * Nesting deeper than Python's parser allows (200 brackets) is a syntax error, so hostile input cannot exhaust the
 * stack. Not supported (treated as not a literal): `\N{NAME}` escapes, whose names would need the Unicode table.
 */
import { PyDict, PyFloat, PyOpaque, PyTuple } from './python.values.js';
import { pyFloatRepr } from './python.format.js';

/** Python's tokenizer refuses more nested brackets than this ("too many nested parentheses"). */
const MAX_PARSE_NESTING = 200;

/** Python refuses decimal int literals longer than this (`sys.int_info.default_max_str_digits`). */
const MAX_INT_DIGITS = 4300;

export type LiteralEvalResult = { ok: true; value: unknown } | { ok: false; typeError: boolean };

type Node =
  | { k: 'const'; value: unknown; numeric: boolean }
  | { k: 'name' }
  | { k: 'unary'; negative: boolean; operand: Node }
  | { k: 'binop'; subtract: boolean; left: Node; right: Node }
  | { k: 'tuple' | 'list' | 'set'; items: Node[] }
  | { k: 'dict'; keys: Node[]; values: Node[] }
  | { k: 'emptySet' };

/*
 * Failures are thrown as these three shared values, not as new Errors: most span states are plain text that fails
 * at its first word, and capturing a stack trace per attempt made the parse cost more than the rendering.
 */
const SYNTAX_ERROR = { failure: 'syntax' } as const;
const MALFORMED_NODE = { failure: 'malformed' } as const;
const UNHASHABLE = { failure: 'unhashable' } as const;

/** Python's `ast.literal_eval(source)`. */
export function literalEval(source: string): LiteralEvalResult {
  // literal_eval strips leading spaces and tabs; compile() refuses null bytes.
  const text = source.replace(/^[ \t]+/, '');
  if (text.includes('\0')) return { ok: false, typeError: false };
  let tree: Node;
  try {
    tree = new Parser(text).parseTop();
  } catch (error) {
    if (error === SYNTAX_ERROR) return { ok: false, typeError: false };
    throw error;
  }
  try {
    return { ok: true, value: convert(tree) };
  } catch (error) {
    if (error === MALFORMED_NODE) return { ok: false, typeError: false };
    if (error === UNHASHABLE) return { ok: false, typeError: true };
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Conversion (literal_eval's `_convert`)

function convert(node: Node): unknown {
  switch (node.k) {
    case 'const':
      return node.value;
    case 'tuple':
      return new PyTuple(node.items.map(convert));
    case 'list':
      return node.items.map(convert);
    case 'set':
      for (const item of node.items) {
        if (unhashable(convert(item))) throw UNHASHABLE;
      }
      return new PyOpaque('set');
    case 'emptySet':
      return new PyOpaque('set');
    case 'dict':
      return convertDict(node.keys, node.values);
    case 'binop': {
      const left = convertSignedNumber(node.left);
      const right = convertNumber(node.right);
      if (!(right instanceof PyOpaque) || right.kind !== 'complex' || left instanceof PyOpaque) throw MALFORMED_NODE;
      return new PyOpaque('complex');
    }
    default:
      return convertSignedNumber(node);
  }
}

function convertNumber(node: Node): unknown {
  if (node.k === 'const' && node.numeric) return node.value;
  throw MALFORMED_NODE;
}

function convertSignedNumber(node: Node): unknown {
  if (node.k !== 'unary') return convertNumber(node);
  const value = convertNumber(node.operand);
  if (!node.negative) return value;
  if (typeof value === 'bigint') return -value;
  if (value instanceof PyFloat) return new PyFloat(-value.value);
  return value;
}

function unhashable(value: unknown): boolean {
  if (Array.isArray(value) || value instanceof PyDict) return true;
  if (value instanceof PyOpaque) return value.kind === 'set';
  if (value instanceof PyTuple) return value.items.some(unhashable);
  return false;
}

let opaqueKeyCounter = 0;

function convertDict(keys: Node[], values: Node[]): PyDict {
  const entries: [string, unknown][] = [];
  const positions = new Map<string, number>();
  let jsonKeysOnly = true;
  for (let i = 0; i < keys.length; i++) {
    const keyNode = keys[i];
    const valueNode = values[i];
    if (!keyNode || !valueNode) throw MALFORMED_NODE;
    const key = convert(keyNode);
    const value = convert(valueNode);
    if (unhashable(key)) throw UNHASHABLE;
    const identity = keyIdentity(key);
    if (identity === null) {
      // A tuple, bytes or complex key: a valid dict, which json.dumps will refuse.
      jsonKeysOnly = false;
      entries.push([`\0opaque${opaqueKeyCounter++}`, value]);
      continue;
    }
    const at = positions.get(identity);
    if (at !== undefined) {
      // Python keeps the first key object and the last value ({1: 'a', 1.0: 'b'} == {1: 'b'}).
      const entry = entries[at];
      if (entry) entry[1] = value;
    } else {
      positions.set(identity, entries.length);
      entries.push([jsonKey(key), value]);
    }
  }
  return new PyDict(entries, jsonKeysOnly);
}

/** Python equality of JSON-able keys (1 == 1.0 == True), or null for keys json.dumps refuses. */
function keyIdentity(key: unknown): string | null {
  if (typeof key === 'string') return `s${key}`;
  if (typeof key === 'bigint') return `n${key}`;
  if (typeof key === 'boolean') return key ? 'n1' : 'n0';
  if (key === null) return 'N';
  if (key instanceof PyFloat) {
    if (Number.isNaN(key.value)) return `nan${opaqueKeyCounter++}`;
    return Number.isInteger(key.value) ? `n${BigInt(key.value)}` : `f${key.value}`;
  }
  return null;
}

/** The string json.dumps writes for a dict key. */
function jsonKey(key: unknown): string {
  if (typeof key === 'string') return key;
  if (typeof key === 'bigint') return key.toString();
  if (typeof key === 'boolean') return key ? 'true' : 'false';
  if (key instanceof PyFloat) {
    const x = key.value;
    if (Number.isNaN(x)) return 'NaN';
    if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
    return pyFloatRepr(x);
  }
  return 'null';
}

// ---------------------------------------------------------------------------------------------------------------
// Parsing

const IDENT_START = /[A-Za-z_\u0080-\uFFFF]/;
const IDENT_CHAR = /[A-Za-z0-9_\u0080-\uFFFF]/;
const HEX_DIGITS = /^[0-9a-fA-F]+$/;
const SIMPLE_ESCAPES: Record<string, string> = {
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

class Parser {
  private pos = 0;
  private depth = 0;
  private readonly text: string;

  constructor(source: string) {
    // compile() reads source with universal newlines.
    this.text = source.includes('\r') ? source.replace(/\r\n?/g, '\n') : source;
  }

  parseTop(): Node {
    this.skip(true);
    const node = this.parseExpressionList(false);
    // A logical line may end with a newline, blank lines and comments, nothing else.
    this.skip(true);
    if (this.pos < this.text.length) throw SYNTAX_ERROR;
    return node;
  }

  /** Whitespace and comments; newlines only inside brackets (or around the top-level expression). */
  private skip(newlines: boolean): void {
    const text = this.text;
    while (this.pos < text.length) {
      const ch = text[this.pos];
      if (ch === ' ' || ch === '\t' || ch === '\f') this.pos++;
      else if (ch === '\n' && (newlines || this.depth > 0)) this.pos++;
      else if (ch === '#') {
        const end = text.indexOf('\n', this.pos);
        this.pos = end < 0 ? text.length : end;
      } else if (ch === '\\' && text[this.pos + 1] === '\n') this.pos += 2;
      else break;
    }
  }

  private peek(): string | undefined {
    return this.text[this.pos];
  }

  private expect(ch: string): void {
    this.skip(false);
    if (this.text[this.pos] !== ch) throw SYNTAX_ERROR;
    this.pos++;
  }

  private enter(): void {
    if (++this.depth > MAX_PARSE_NESTING) throw SYNTAX_ERROR;
  }

  /** `a, b` as a tuple (the comma makes the tuple), or a single expression. */
  private parseExpressionList(closedBy: string | false): Node {
    const first = this.parseExpression();
    this.skip(false);
    if (this.peek() !== ',') return first;
    const items = [first];
    while (this.peek() === ',') {
      this.pos++;
      this.skip(false);
      const next = this.peek();
      if (next === undefined || next === '\n' || next === closedBy) break;
      items.push(this.parseExpression());
      this.skip(false);
    }
    return { k: 'tuple', items };
  }

  private parseExpression(): Node {
    let left = this.parseUnary();
    for (;;) {
      this.skip(false);
      const ch = this.peek();
      if (ch !== '+' && ch !== '-') return left;
      this.pos++;
      const right = this.parseUnary();
      left = { k: 'binop', subtract: ch === '-', left, right };
    }
  }

  private parseUnary(): Node {
    this.skip(false);
    const ch = this.peek();
    if (ch === '+' || ch === '-') {
      this.pos++;
      this.enter();
      const operand = this.parseUnary();
      this.depth--;
      return { k: 'unary', negative: ch === '-', operand };
    }
    return this.parseAtom();
  }

  private parseAtom(): Node {
    this.skip(false);
    const text = this.text;
    const ch = text[this.pos];
    if (ch === undefined) throw SYNTAX_ERROR;
    if (ch === '(') {
      this.pos++;
      this.enter();
      this.skip(false);
      let node: Node;
      if (this.peek() === ')') node = { k: 'tuple', items: [] };
      else node = this.parseExpressionList(')');
      this.expect(')');
      this.depth--;
      return node;
    }
    if (ch === '[') {
      this.pos++;
      this.enter();
      const items = this.parseItems(']');
      this.depth--;
      return { k: 'list', items };
    }
    if (ch === '{') {
      this.pos++;
      this.enter();
      const node = this.parseBraces();
      this.depth--;
      return node;
    }
    if ((ch >= '0' && ch <= '9') || (ch === '.' && /[0-9]/.test(text[this.pos + 1] ?? ''))) return this.parseNumber();
    if (ch === "'" || ch === '"' || IDENT_START.test(ch)) return this.parseNameOrStrings();
    throw SYNTAX_ERROR;
  }

  /** Comma-separated expressions up to `close`, trailing comma allowed. */
  private parseItems(close: string): Node[] {
    const items: Node[] = [];
    for (;;) {
      this.skip(false);
      if (this.peek() === close) break;
      items.push(this.parseExpression());
      this.skip(false);
      if (this.peek() === ',') {
        this.pos++;
        continue;
      }
      if (this.peek() !== close) throw SYNTAX_ERROR;
    }
    this.pos++;
    return items;
  }

  private parseBraces(): Node {
    this.skip(false);
    if (this.peek() === '}') {
      this.pos++;
      return { k: 'dict', keys: [], values: [] };
    }
    const first = this.parseExpression();
    this.skip(false);
    if (this.peek() !== ':') {
      if (this.peek() !== ',') {
        this.expect('}');
        return { k: 'set', items: [first] };
      }
      this.pos++;
      return { k: 'set', items: [first, ...this.parseItems('}')] };
    }
    const keys: Node[] = [first];
    const values: Node[] = [];
    this.pos++;
    values.push(this.parseExpression());
    for (;;) {
      this.skip(false);
      const ch = this.peek();
      if (ch === '}') break;
      if (ch !== ',') throw SYNTAX_ERROR;
      this.pos++;
      this.skip(false);
      if (this.peek() === '}') break;
      keys.push(this.parseExpression());
      this.expect(':');
      values.push(this.parseExpression());
    }
    this.pos++;
    return { k: 'dict', keys, values };
  }

  private parseNumber(): Node {
    const text = this.text;
    const start = this.pos;
    let value: unknown;
    const radix = text[start] === '0' ? (text[start + 1] ?? '').toLowerCase() : '';
    if (radix === 'x' || radix === 'o' || radix === 'b') {
      this.pos += 2;
      const digit = radix === 'x' ? /[0-9a-fA-F]/ : radix === 'o' ? /[0-7]/ : /[01]/;
      let count = 0;
      for (;;) {
        if (text[this.pos] === '_') this.pos++;
        if (!digit.test(text[this.pos] ?? '')) break;
        while (digit.test(text[this.pos] ?? '')) {
          this.pos++;
          count++;
        }
      }
      if (count === 0 || text[this.pos - 1] === '_') throw SYNTAX_ERROR;
      value = BigInt(text.slice(start, this.pos).replace(/_/g, ''));
    } else {
      const integer = this.scanDigits();
      let isFloat = false;
      if (text[this.pos] === '.') {
        this.pos++;
        const fraction = this.scanDigits();
        if (integer === '' && fraction === '') throw SYNTAX_ERROR;
        isFloat = true;
      }
      const e = text[this.pos];
      if (e === 'e' || e === 'E') {
        const sign = text[this.pos + 1] === '+' || text[this.pos + 1] === '-' ? 1 : 0;
        if (!/[0-9]/.test(text[this.pos + 1 + sign] ?? '')) throw SYNTAX_ERROR;
        this.pos += 1 + sign;
        this.scanDigits();
        isFloat = true;
      }
      const literal = text.slice(start, this.pos).replace(/_/g, '');
      if (text[this.pos] === 'j' || text[this.pos] === 'J') {
        this.pos++;
        value = new PyOpaque('complex');
      } else if (isFloat) {
        value = new PyFloat(Number(literal));
      } else {
        // "007" is a syntax error; "000" is fine.
        if (/^0+[1-9]/.test(literal) || literal.length > MAX_INT_DIGITS) throw SYNTAX_ERROR;
        value = BigInt(literal);
      }
    }
    if (IDENT_CHAR.test(text[this.pos] ?? '') || text[this.pos] === '.') throw SYNTAX_ERROR;
    return { k: 'const', value, numeric: true };
  }

  /** `digit (["_"] digit)*`, possibly empty. */
  private scanDigits(): string {
    const text = this.text;
    const start = this.pos;
    while (/[0-9]/.test(text[this.pos] ?? '')) {
      this.pos++;
      if (text[this.pos] === '_') {
        if (!/[0-9]/.test(text[this.pos + 1] ?? '')) throw SYNTAX_ERROR;
        this.pos++;
      }
    }
    return text.slice(start, this.pos);
  }

  private parseNameOrStrings(): Node {
    const text = this.text;
    let kind: 'str' | 'bytes' | null = null;
    const parts: string[] = [];
    for (;;) {
      this.skip(false);
      const start = this.pos;
      while (IDENT_CHAR.test(text[this.pos] ?? '')) this.pos++;
      const word = text.slice(start, this.pos);
      const quote = text[this.pos];
      if (quote !== "'" && quote !== '"') {
        if (kind !== null || word === '') {
          // The end of a run of adjacent string literals.
          this.pos = start;
          break;
        }
        return this.nameNode(word);
      }
      const prefix = word.toLowerCase();
      if (!['', 'r', 'u', 'b', 'br', 'rb', 'f', 'fr', 'rf'].includes(prefix)) throw SYNTAX_ERROR;
      // An f-string is not a constant (literal_eval rejects it), even without placeholders.
      if (prefix.includes('f')) throw SYNTAX_ERROR;
      const isBytes = prefix.includes('b');
      const partKind = isBytes ? 'bytes' : 'str';
      if (kind !== null && kind !== partKind) throw SYNTAX_ERROR;
      kind = partKind;
      parts.push(this.scanString(prefix.includes('r'), isBytes));
    }
    const value = kind === 'bytes' ? new PyOpaque('bytes') : parts.join('');
    return { k: 'const', value, numeric: false };
  }

  private nameNode(word: string): Node {
    if (word === 'True') return { k: 'const', value: true, numeric: false };
    if (word === 'False') return { k: 'const', value: false, numeric: false };
    if (word === 'None') return { k: 'const', value: null, numeric: false };
    this.skip(false);
    if (this.peek() === '(') {
      // Only `set()` is a literal call; any other call is malformed.
      this.pos++;
      this.expect(')');
      if (word !== 'set') throw SYNTAX_ERROR;
      return { k: 'emptySet' };
    }
    return { k: 'name' };
  }

  /** One string literal starting at its quote; returns its value. */
  private scanString(raw: boolean, isBytes: boolean): string {
    const text = this.text;
    const quote = text[this.pos] ?? '';
    const triple = text[this.pos + 1] === quote && text[this.pos + 2] === quote;
    const delimiter = triple ? quote.repeat(3) : quote;
    this.pos += delimiter.length;
    const out: string[] = [];
    let chunkStart = this.pos;
    for (;;) {
      const ch = text[this.pos];
      if (ch === undefined) throw SYNTAX_ERROR;
      if (ch === '\n' && !triple) throw SYNTAX_ERROR;
      if (isBytes && ch.charCodeAt(0) > 0x7f) throw SYNTAX_ERROR;
      if (ch === quote && (!triple || text.startsWith(delimiter, this.pos))) {
        out.push(text.slice(chunkStart, this.pos));
        this.pos += delimiter.length;
        return out.join('');
      }
      if (ch !== '\\') {
        this.pos++;
        continue;
      }
      const next = text[this.pos + 1];
      if (next === undefined) throw SYNTAX_ERROR;
      if (raw) {
        // In a raw string a backslash keeps the next character, which then cannot close the string.
        this.pos += 2;
        continue;
      }
      out.push(text.slice(chunkStart, this.pos));
      this.pos += 2;
      out.push(this.escape(next, isBytes));
      chunkStart = this.pos;
    }
  }

  /** The value of the escape whose letter `letter` was just consumed. */
  private escape(letter: string, isBytes: boolean): string {
    const text = this.text;
    if (letter === '\n') return '';
    const simple = SIMPLE_ESCAPES[letter];
    if (simple !== undefined) return simple;
    if (letter >= '0' && letter <= '7') {
      let digits = letter;
      while (digits.length < 3 && /[0-7]/.test(text[this.pos] ?? '')) digits += text[this.pos++];
      return String.fromCodePoint(parseInt(digits, 8));
    }
    const hexLength = letter === 'x' ? 2 : !isBytes && letter === 'u' ? 4 : !isBytes && letter === 'U' ? 8 : 0;
    if (hexLength > 0) {
      const hex = text.slice(this.pos, this.pos + hexLength);
      if (hex.length !== hexLength || !HEX_DIGITS.test(hex)) throw SYNTAX_ERROR;
      const cp = parseInt(hex, 16);
      if (cp > 0x10ffff) throw SYNTAX_ERROR;
      this.pos += hexLength;
      return String.fromCodePoint(cp);
    }
    // \N{NAME} would need the Unicode name table.
    if (letter === 'N' && !isBytes) throw SYNTAX_ERROR;
    // Unknown escapes keep their backslash.
    return `\\${letter}`;
  }
}
