const REFERENCE = /\[L(\d+)(?:\s*[-–]\s*L?(\d+))?\]/g;

/**
 * Makes every `[Lx]` / `[Lx-y]` of a summary point at lines that exist (1…lineCount): a range that
 * runs past the end is cut to the last line, a reversed or one-line range becomes `[Lx]`, and a
 * reference to a line that does not exist is dropped.
 */
export function fixLineReferences(summary: string, lineCount: number): string {
  const fixed = summary.replace(REFERENCE, (_whole, from: string, to: string | undefined) => {
    const start = Number(from);
    if (!Number.isSafeInteger(start) || start < 1 || start > lineCount) return '';
    const end = to === undefined ? start : Math.min(Number(to), lineCount);
    return end > start ? `[L${start}-${end}]` : `[L${start}]`;
  });
  // A dropped reference leaves its neighbours' spacing behind.
  return fixed.replace(/[ \t]+([.,;:])/g, '$1').replace(/[ \t]{2,}/g, ' ').replace(/[ \t]+$/gm, '');
}

/** The summary's `# Title` line, or the default batch_check shows. */
export function summaryTitle(summary: string, fallback = 'Untitled trace'): string {
  const heading = /^#\s+(.+)$/m.exec(summary);
  return heading?.[1]?.trim() || fallback;
}
