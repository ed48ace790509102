/**
 * The lines the formatters produce: strings, and truncation markers whose base64 is written only when the text
 * keeps them.
 */
import { codePointLength, utf8Base64 } from './code-points.js';

const MARKER_OPEN = '<<<TRUNCATED|';

/** Characters of standard base64 (with padding) for `bytes` bytes. */
function base64Length(bytes: number): number {
  return 4 * Math.ceil(bytes / 3);
}

/**
 * A `<<<TRUNCATED|base64|N>>>` line, known by its length until it is written. The marker of a multi-megabyte
 * block is longer than the default `max_length`, so sampling drops it; encoding it anyway, then scanning and
 * copying the result, cost more than the rest of the rendering. Joining the lines, or a template literal,
 * writes it (`toString`); it never holds a newline.
 */
export class TruncationMarker {
  /** Length in code points, which is its length in UTF-16 units too: base64 and digits are ASCII. */
  readonly length: number;

  constructor(
    private readonly truncatedText: string,
    private readonly truncatedChars: number,
  ) {
    this.length = MARKER_OPEN.length + base64Length(Buffer.byteLength(truncatedText, 'utf8')) + this.close().length;
  }

  toString(): string {
    return `${MARKER_OPEN}${utf8Base64(this.truncatedText)}${this.close()}`;
  }

  private close(): string {
    return `|${this.truncatedChars}>>>`;
  }
}

export type TextLine = string | TruncationMarker;

/** A line's length in code points. */
export function lineLength(line: TextLine): number {
  return typeof line === 'string' ? codePointLength(line) : line.length;
}
