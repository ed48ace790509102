/**
 * `max_length` reduction (section 3.5.11, PostHog's latest deterministic variant `reduce_by_uniform_sampling`):
 * keep the first PRESERVE_HEADER_LINES lines, keep every k-th of the other lines so the text fits, and insert a
 * `[SAMPLED VIEW: ...]` note after the first two lines; line numbers (when present) show the gaps. Cut hard when
 * sampling cannot help (too few lines, or the header alone is too long). All lengths are code points.
 *
 * It works on the text's lines and their lengths (which the caller has anyway), so that a multi-megabyte text is
 * neither split nor measured again.
 */
import { codePointLength, sliceCodePoints } from './code-points.js';
import { pyFixed, withThousands } from './python.format.js';
import { PRESERVE_HEADER_LINES, SAMPLING_MAX_ITERATIONS, SAMPLING_REDUCTION_FACTOR } from './text-repr.constants.js';
import type { TextLine } from './text-line.js';

export interface ReducedText {
  text: string;
  /** Length of `text` in code points. */
  length: number;
  /** True when lines were dropped or the text was cut. */
  reduced: boolean;
}

function samplingNote(percent: number, totalLines: number): string {
  return `[SAMPLED VIEW: Showing ~${pyFixed(percent, 0)}% of ${withThousands(totalLines)} lines. Gaps in line numbers indicate omitted content.]`;
}

/**
 * The text of `lines` (none containing a newline; `lengths` their code-point lengths) when it has at most
 * `maxLength` code points, else a sampled (or cut) text of at most that many. Only the lines kept are written.
 */
export function reduceLinesToMaxLength(lines: readonly TextLine[], lengths: readonly number[], maxLength: number): ReducedText {
  let textLength = Math.max(lines.length - 1, 0);
  for (const length of lengths) textLength += length;
  if (textLength <= maxLength) return { text: lines.join('\n'), length: textLength, reduced: false };
  const cut = (): ReducedText => ({ text: sliceCodePoints(lines.join('\n'), maxLength), length: maxLength, reduced: true });

  const totalLines = lines.length;
  if (totalLines <= PRESERVE_HEADER_LINES) return cut();
  const header = lines.slice(0, PRESERVE_HEADER_LINES);
  const bodyLengths = lengths.slice(PRESERVE_HEADER_LINES);
  const bodyCount = bodyLengths.length;

  let headerLength = PRESERVE_HEADER_LINES - 1;
  for (let i = 0; i < PRESERVE_HEADER_LINES; i++) headerLength += lengths[i] ?? 0;
  const noteSize = codePointLength(samplingNote(100, totalLines)) + 1;
  const available = maxLength - (headerLength + 1 + noteSize);
  if (available <= 0) return cut();

  let bodyTotal = 0;
  for (const length of bodyLengths) bodyTotal += length + 1;
  let target = Math.trunc(available / (bodyTotal / bodyCount));
  if (target >= bodyCount) return cut();
  target = Math.max(target, 1);

  // Lengths are summed instead of joining each candidate, so a round costs O(target), not O(text).
  const sample = (count: number): { picked: number[]; length: number; note: string } => {
    const step = bodyCount / count;
    const picked: number[] = [];
    let length = 0;
    for (let i = 0; i < count; i++) {
      const index = Math.floor(i * step);
      if (index < bodyCount) {
        picked.push(index);
        length += (bodyLengths[index] ?? 0) + 1;
      }
    }
    const note = samplingNote((picked.length / bodyCount) * 100, totalLines);
    // Header lines, note and picked lines joined by newlines.
    return { picked, note, length: headerLength + 1 + codePointLength(note) + length };
  };

  let result = sample(target);
  for (let iteration = 0; result.length > maxLength && iteration < SAMPLING_MAX_ITERATIONS; iteration++) {
    const factor = (maxLength / result.length) * SAMPLING_REDUCTION_FACTOR;
    target = Math.max(Math.trunc(target * factor), 1);
    result = sample(target);
  }

  const out = [...header.slice(0, 2), result.note, ...header.slice(2)];
  for (const index of result.picked) out.push(lines[PRESERVE_HEADER_LINES + index] ?? '');
  const joined = out.join('\n');
  if (result.length > maxLength) return { text: sliceCodePoints(joined, maxLength), length: maxLength, reduced: true };
  return { text: joined, length: result.length, reduced: true };
}
