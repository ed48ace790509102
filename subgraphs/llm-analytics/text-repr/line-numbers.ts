/**
 * Line numbers (section 3.5.10): `L<n>: ` with n zero-padded to the number of digits of the line count, so 9 lines
 * give `L1:`, 15 lines `L01:`, 100-999 lines `L001:`.
 */

import type { TextLine } from './text-line.js';

/** Numbers single lines (no line may contain a newline) in place; a numbered marker is written out. */
export function numberLines(lines: TextLine[]): void {
  const width = String(lines.length).length;
  for (let i = 0; i < lines.length; i++) {
    lines[i] = `L${String(i + 1).padStart(width, '0')}: ${lines[i]}`;
  }
}

/** Numbers the lines of a text. */
export function addLineNumbers(text: string): string {
  const lines = text.split('\n');
  numberLines(lines);
  return lines.join('\n');
}
