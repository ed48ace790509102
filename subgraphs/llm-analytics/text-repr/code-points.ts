/**
 * Code-point arithmetic. Python's `len()` and slicing count code points, JavaScript strings count UTF-16 units;
 * every length the text representation reports or compares is in code points. Strings without surrogates (all
 * Latin-1 strings, which V8 stores one byte per character) take the fast path where both agree.
 */

const SURROGATE = /[\uD800-\uDFFF]/;

/** True when the string holds any surrogate unit (an astral character or a lone surrogate). */
export function hasSurrogates(text: string): boolean {
  return SURROGATE.test(text);
}

// Global regexes keep state in lastIndex; each use below resets it first and runs to completion synchronously.
const SURROGATE_PAIR = /[\uD800-\uDBFF][\uDC00-\uDFFF]/g;

/**
 * Number of code points; a lone surrogate counts as one, as in Python. Counting pairs with a regex scan is
 * faster than a charCodeAt loop on sparse emoji, and no slower on dense ones.
 */
export function codePointLength(text: string): number {
  if (!SURROGATE.test(text)) return text.length;
  let pairs = 0;
  SURROGATE_PAIR.lastIndex = 0;
  while (SURROGATE_PAIR.exec(text) !== null) pairs++;
  return text.length - pairs;
}

/** UTF-16 index just after the first `count` code points (the string's length when it has fewer). */
export function indexAfterCodePoints(text: string, count: number): number {
  let i = 0;
  const n = text.length;
  for (let k = 0; k < count && i < n; k++) {
    const c = text.charCodeAt(i);
    i += c >= 0xd800 && c <= 0xdbff && i + 1 < n && isLowSurrogate(text.charCodeAt(i + 1)) ? 2 : 1;
  }
  return i;
}

/** UTF-16 index where the last `count` code points start (0 when the string has fewer). */
export function indexOfLastCodePoints(text: string, count: number): number {
  let i = text.length;
  for (let k = 0; k < count && i > 0; k++) {
    const c = text.charCodeAt(i - 1);
    i -= isLowSurrogate(c) && i >= 2 && isHighSurrogate(text.charCodeAt(i - 2)) ? 2 : 1;
  }
  return i;
}

/** Python's `text[:count]`. */
export function sliceCodePoints(text: string, count: number): string {
  if (count >= text.length) return text;
  if (!SURROGATE.test(text)) return text.slice(0, count);
  return text.slice(0, indexAfterCodePoints(text, count));
}

/** Standard base64 (with padding) of the UTF-8 bytes; a lone surrogate is encoded as U+FFFD. */
export function utf8Base64(text: string): string {
  return Buffer.from(text, 'utf8').toString('base64');
}

function isHighSurrogate(c: number): boolean {
  return c >= 0xd800 && c <= 0xdbff;
}

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff;
}
