/** Middle truncation of one content block (section 3.5.2). */
import { codePointLength, hasSurrogates, indexAfterCodePoints, indexOfLastCodePoints } from './code-points.js';
import { TruncationMarker, type TextLine } from './text-line.js';
import type { TextReprOptions } from './text-repr.options.js';

/**
 * The lines of a content block: unchanged when `truncated` is off or the content has at most `truncate_buffer`
 * (B) code points; else the first and last floor(B/2) code points around either a `<<<TRUNCATED|base64|N>>>`
 * marker line (markers on) or a `... (N chars truncated) ...` note (markers off), N being length minus B.
 *
 * With B below 2 (half = 0) the kept parts are empty and the whole content goes into the marker; Python's
 * `content[-0:]` would keep the whole content as the "last part" instead, which is a slicing accident.
 */
export function truncateContent(content: string, options: TextReprOptions): TextLine[] {
  const buffer = options.truncate_buffer;
  // The UTF-16 length bounds the code-point length from above, so short content needs no counting.
  if (!options.truncated || content.length <= buffer) return [content];
  const surrogates = hasSurrogates(content);
  const length = surrogates ? codePointLength(content) : content.length;
  if (length <= buffer) return [content];

  const half = Math.floor(buffer / 2);
  const headEnd = surrogates ? indexAfterCodePoints(content, half) : half;
  const tailStart = surrogates ? indexOfLastCodePoints(content, half) : content.length - half;
  const first = content.slice(0, headEnd);
  const last = content.slice(tailStart);
  const truncatedChars = length - buffer;

  if (options.include_markers) {
    return [first, '', new TruncationMarker(content.slice(headEnd, tailStart), truncatedChars), '', last];
  }
  return [`${first}\n\n... (${truncatedChars} chars truncated) ...\n\n${last}`];
}
