export type SummaryMode = 'minimal' | 'detailed';

/** The API document's 5 to 10 bullets: minimal takes the short end, detailed the long end. */
const SHAPE: Record<SummaryMode, { bullets: string; notes: string }> = {
  minimal: { bullets: '5 to 6', notes: 'at most 2' },
  detailed: { bullets: '8 to 10', notes: '2 to 5' },
};

export function systemPrompt(mode: SummaryMode, kind: 'trace' | 'event'): string {
  const { bullets, notes } = SHAPE[mode];
  return [
    `You analyse one LLM ${kind === 'trace' ? 'trace (a tree of generations, spans and events)' : 'event'} from an application, given as line-numbered text, and explain what happened.`,
    'Answer in Markdown, exactly in this layout:',
    '',
    '# <a title of at most 10 words>',
    '',
    '## Summary',
    `<${bullets} bullet points ("- ") on the main flow and the key decisions, in order>`,
    '',
    '## Interesting Notes',
    `<${notes} bullet points on failures, successes or unusual patterns; "- None." when there are none>`,
    '',
    'Every bullet cites the lines it is about, as [L45] for one line or [L45-52] for a range, using the numbers',
    'at the start of the lines (L45: …). Cite only lines that exist. Ignore markers of omitted content such as',
    '[SAMPLED VIEW: …] or [...N lines...]. Do not invent details that the text does not show.',
  ].join('\n');
}

export function userPrompt(text: string, kind: 'trace' | 'event'): string {
  return `Summarize this ${kind}:\n\n${text}`;
}
