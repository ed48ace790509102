/**
 * A LIKE / ILIKE pattern for "contains `text`": the wildcards in the text match themselves
 * (backslash is LIKE's escape character by default).
 */
export function containsPattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
}
