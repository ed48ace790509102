import { describe, expect, it } from 'vitest';
import { decodeBase64, markerFields, node, render, renderLines, RULE, SEP, traceData } from './text-repr.fixture.js';
import { parseTextReprOptions, renderTextRepr } from './text-repr.js';
import { eventSummary, formatTraceLines, treeOutputBudget } from './trace.formatter.js';

const HEADER = ['TRACE', RULE, '', SEP, '', 'TRACE HIERARCHY:', ''];
/** The tree lines of a trace (after the title and the TRACE HIERARCHY header). */
const treeLines = (hierarchy: unknown[], options?: unknown) => renderLines('$ai_trace', traceData(hierarchy), options).slice(HEADER.length);
const collapsed = (hierarchy: unknown[], options: Record<string, unknown> = {}) => treeLines(hierarchy, { collapsed: true, ...options });

describe('node summaries (3.5.9, 3.5.12)', () => {
  it.each([
    [
      '$ai_generation',
      { $ai_span_name: 'my-generation', $ai_latency: 0.45, $ai_total_cost_usd: 0.0023, $ai_model: 'gpt-4' },
      'my-generation (0.45s, $0.0023, gpt-4)',
    ],
    ['$ai_generation', {}, 'generation'],
    ['$ai_generation', { $ai_model: 'claude-3' }, 'claude-3 (claude-3)'],
    ['$ai_generation', { $ai_span_name: 'test', $ai_is_error: true }, 'test (ERROR)'],
    ['$ai_generation', { $ai_span_name: 'test', $ai_error: 'x', $ai_latency: 10 }, 'test (10.00s, ERROR)'],
    ['$ai_span', { $ai_span_name: 'my-span', $ai_latency: 1.2 }, 'my-span (1.20s)'],
    ['$ai_span', { $ai_is_error: true, $ai_error: 'ignored', $ai_total_cost_usd: 1 }, 'span (ERROR)'],
    ['$ai_span', { $ai_span_name: null }, 'None'],
    ['$ai_embedding', { $ai_latency: 0.1, $ai_total_cost_usd: 1.23456 }, 'embedding (0.10s, $1.2346)'],
    ['$ai_embedding', { $ai_model: 'text-embedding-3', $ai_total_cost_usd: 0 }, 'text-embedding-3 ($0.0000, text-embedding-3)'],
    ['custom_event', { $ai_span_name: 'ignored' }, 'custom_event'],
    ['$ai_generation', { $ai_latency: 'slow', $ai_total_cost_usd: null }, 'generation'],
  ])('%s %j -> %s', (event, properties, expected) => {
    expect(eventSummary({ event, properties })).toBe(expected);
  });

  it('names events without a type unknown', () => {
    expect(eventSummary({})).toBe('unknown');
  });
});

describe('trace tree (3.5.9)', () => {
  const gen = (id: string, name: string, children: unknown[] = []) => node(id, '$ai_generation', { $ai_span_name: name }, children);

  it('draws a single root with └─ and two siblings with ├─ then └─', () => {
    expect(collapsed([gen('g1', 'only')])).toEqual(['└─ [GEN] only']);
    expect(collapsed([gen('g1', 'first'), gen('g2', 'second')])).toEqual(['├─ [GEN] first', '└─ [GEN] second']);
  });

  it('indents children with │ under a non-last parent and spaces under the last', () => {
    const hierarchy = [
      node('s1', '$ai_span', { $ai_span_name: 'a' }, [gen('g1', 'a1'), node('s2', '$ai_span', { $ai_span_name: 'a2' }, [gen('g2', 'a2x')])]),
      node('s3', '$ai_span', { $ai_span_name: 'b' }, [gen('g3', 'b1'), node('e1', '$ai_embedding', {})]),
    ];
    expect(collapsed(hierarchy)).toEqual([
      '├─ [SPAN] a',
      '│  ├─ [GEN] a1',
      '│  └─ [SPAN] a2',
      '│     └─ [GEN] a2x',
      '└─ [SPAN] b',
      '   ├─ [GEN] b1',
      '   └─ [EMBED] embedding',
    ]);
  });

  it('marks expandable nodes with their id, label and base64 rendering', () => {
    const hierarchy = [node('gen1', '$ai_generation', { $ai_span_name: 'test', $ai_input: 'input', $ai_output: 'out' })];
    const [line = ''] = treeLines(hierarchy);
    expect(line.startsWith('└─ <<<GEN_EXPANDABLE|gen1|[GEN] test|')).toBe(true);
    const [id, label, encoded = ''] = markerFields(line, 'GEN_EXPANDABLE');
    expect([id, label]).toEqual(['gen1', '[GEN] test']);
    expect(decodeBase64(encoded)).toBe([SEP, '', 'INPUT:', '', 'input', '', SEP, '', 'OUTPUT:', '', 'out'].join('\n'));
  });

  it('uses GEN_EXPANDABLE for spans and embeddings too, and renders each with its own formatter', () => {
    const lines = treeLines([node('s1', '$ai_span', { $ai_span_name: 'step', $ai_input_state: 'q' }), node('e1', '$ai_embedding', {})]);
    expect(lines.map((line) => markerFields(line, 'GEN_EXPANDABLE').slice(0, 2))).toEqual([
      ['s1', '[SPAN] step'],
      ['e1', '[EMBED] embedding'],
    ]);
    expect(decodeBase64(markerFields(lines[0] ?? '', 'GEN_EXPANDABLE')[2] ?? '')).toBe(['STEP', RULE, SEP, '', 'INPUT STATE:', '', 'q'].join('\n'));
  });

  it('links other events instead of expanding them', () => {
    expect(treeLines([node('custom1', 'custom_event')])).toEqual(['└─ <<<EVENT_LINK|custom1|[EVENT]>>> custom_event']);
    expect(treeLines([node('custom1', 'custom_event')], { include_markers: false })).toEqual(['└─ [EVENT] custom_event']);
    expect(treeLines([{ children: [] }])).toEqual(['└─ <<<EVENT_LINK|unknown|[EVENT]>>> unknown']);
  });

  it('expands nodes inline without markers, under the child prefix plus four spaces', () => {
    const hierarchy = [gen('g1', 'first', [node('c1', 'custom')]), gen('g2', 'second')];
    expect(treeLines(hierarchy, { include_markers: false })).toEqual([
      '├─ [+] [GEN] first',
      '│      ',
      '│  └─ [EVENT] custom',
      '└─ [+] [GEN] second',
      '       ',
    ]);
    const withContent = treeLines([node('g', '$ai_generation', { $ai_output: 'hi' })], { include_markers: false });
    expect(withContent).toEqual(['└─ [+] [GEN] generation', `       ${SEP}`, '       ', '       OUTPUT:', '       ', '       hi']);
  });

  it('draws only summaries when collapsed, whatever the markers', () => {
    const hierarchy = [gen('g1', 'test'), node('x', 'custom')];
    expect(collapsed(hierarchy, { include_markers: true })).toEqual(['├─ [GEN] test', '└─ [EVENT] custom']);
    expect(render('$ai_trace', traceData(hierarchy), { collapsed: true })).not.toContain('GEN_EXPANDABLE');
  });

  it('accepts nodes that are the event itself (no event object), and skips entries that are not objects', () => {
    const hierarchy = ['junk', { id: 'gen_1', event: '$ai_generation', properties: { $ai_model: 'm' }, children: [42, { id: 'c', event: 'child' }] }, null];
    expect(collapsed(hierarchy)).toEqual(['└─ [GEN] m (m)', '   └─ [EVENT] child']);
  });

  it('honours max_depth: a node at depth d is drawn iff d < max_depth', () => {
    const chain = gen('g0', 'd0', [gen('g1', 'd1', [gen('g2', 'd2', [gen('g3', 'd3')])]), gen('g1b', 'd1b')]);
    expect(collapsed([chain], { max_depth: 2 })).toEqual(['└─ [GEN] d0', '   ├─ [GEN] d1', '   │    [... max depth reached]', '   └─ [GEN] d1b']);
    expect(collapsed([chain], { max_depth: 1 })).toEqual(['└─ [GEN] d0', '     [... max depth reached]']);
    expect(collapsed([chain], { max_depth: 0 })).toEqual(['  [... max depth reached]']);
    expect(collapsed([chain], { max_depth: 4 })).toHaveLength(5);
  });

  it('has no depth limit by default (PostHog stops at 10)', () => {
    let chain = gen('g15', 'd15');
    for (let depth = 14; depth >= 0; depth--) chain = gen(`g${depth}`, `d${depth}`, [chain]);
    const lines = collapsed([chain]);
    expect(lines).toHaveLength(16);
    expect(lines[15]).toBe(`${'   '.repeat(15)}└─ [GEN] d15`);
  });

  it('stops drawing at the output budget and reports truncation', () => {
    const hierarchy = Array.from({ length: 100 }, (_, i) => node(`g${i}`, '$ai_generation', { $ai_output: 'x'.repeat(100) }));
    const options = parseTextReprOptions({ include_markers: false });
    const full = formatTraceLines({}, hierarchy, options, treeOutputBudget(options.max_length));
    expect(full.cut).toBe(false);
    const cut = formatTraceLines({}, hierarchy, options, 1000);
    expect(cut.cut).toBe(true);
    expect(cut.lines.at(-1)).toBe('[... trace tree cut: output too large]');
    expect(cut.lines.join('\n').length).toBeLessThan(1300);
    expect(treeOutputBudget(2_000_000)).toBe(32_000_000);
    expect(treeOutputBudget(100_000_000)).toBe(200_000_000);
    expect(treeOutputBudget(1e12)).toBe(256_000_000);
  });

  it('bounds hostile trees: 40,000 nodes under a 1,500-level chain would draw 180 M characters', () => {
    let chain: Record<string, unknown> = node('leaf', '$ai_span', {}, Array.from({ length: 40_000 }, (_, i) => node(`k${i}`, 'e')));
    for (let depth = 0; depth < 1500; depth++) chain = node(`c${depth}`, '$ai_span', {}, [chain]);
    const result = renderTextRepr('$ai_trace', traceData([chain]), { collapsed: true, max_length: 16_000_000 });
    expect(result.metadata.truncated).toBe(true);
    expect(result.metadata.char_count).toBeLessThanOrEqual(16_000_000);
  });
});

describe('trace layout (3.5.9)', () => {
  it.each([
    ['the span name', { $ai_span_name: 'my-trace' }, {}, 'MY-TRACE'],
    ['traceName', {}, { traceName: 'Chat bot' }, 'CHAT BOT'],
    ['trace_name after an empty span name', { $ai_span_name: '' }, { trace_name: 'snake' }, 'SNAKE'],
    ['the default', {}, {}, 'TRACE'],
  ])('titles a trace from %s', (_label, properties, extra, title) => {
    expect(renderLines('$ai_trace', traceData([], properties, extra)).slice(0, 2)).toEqual([title, RULE]);
  });

  it('shows a trace error as a string or indented JSON', () => {
    const errorLines = (error: unknown) => renderLines('$ai_trace', traceData([], { $ai_error: error }));
    expect(errorLines('Something went wrong')).toEqual(['TRACE', RULE, '', SEP, '', 'TRACE ERROR:', '', 'Something went wrong']);
    expect(errorLines({ message: 'error', code: 500 }).slice(7)).toEqual(['{', '  "message": "error",', '  "code": 500', '}']);
    expect(errorLines(true).slice(7)).toEqual(['true']);
  });

  it('shows trace input and output states only without a hierarchy', () => {
    expect(renderLines('$ai_trace', traceData([], { $ai_input_state: { query: 'test query' }, $ai_output_state: 'done' }))).toEqual([
      'TRACE',
      RULE,
      '',
      SEP,
      '',
      'TRACE INPUT:',
      '',
      '{',
      '  "query": "test query"',
      '}',
      '',
      SEP,
      '',
      'TRACE OUTPUT:',
      '',
      'done',
    ]);
    const withTree = render('$ai_trace', traceData([node('g', '$ai_generation')], { $ai_input_state: 'hidden' }));
    expect(withTree).not.toContain('TRACE INPUT');
  });

  it('renders message-like states with the generation INPUT / OUTPUT sections', () => {
    const states = { inputState: [{ role: 'user', content: 'q' }], output_state: [{ role: 'assistant', content: 'a' }] };
    const lines = renderLines('$ai_trace', traceData([], {}, states));
    expect(lines).toEqual(['TRACE', RULE, '', SEP, '', 'INPUT:', '', '[1] USER', '', 'q', '', SEP, '', 'OUTPUT:', '', '[1] ASSISTANT', '', 'a']);
  });

  it('renders the states instead of the tree with include_hierarchy: false', () => {
    const data = traceData([node('g', '$ai_generation')], { $ai_span_name: 'flat', $ai_error: 'bad', $ai_output_state: 42 });
    const lines = renderLines('$ai_trace', data, { include_hierarchy: false });
    expect(lines).toEqual(['FLAT', RULE, '', SEP, '', 'TRACE ERROR:', '', 'bad', '', SEP, '', 'TRACE OUTPUT:', '', '42']);
  });

  it('shows the header and tree of a hierarchy', () => {
    const lines = renderLines('$ai_trace', traceData([node('g', '$ai_generation', { $ai_span_name: 'generation' })]));
    expect(lines.slice(0, 7)).toEqual(HEADER);
    expect(lines[7]?.startsWith('└─ <<<GEN_EXPANDABLE|g|[GEN] generation|')).toBe(true);
  });

  it('numbers the lines of the whole text only', () => {
    const data = traceData([node('g', '$ai_generation', { $ai_output: 'hi' })]);
    const lines = renderLines('$ai_trace', data, { include_line_numbers: true, include_markers: false });
    expect(lines).toEqual([
      'L01: TRACE',
      `L02: ${RULE}`,
      'L03: ',
      `L04: ${SEP}`,
      'L05: ',
      'L06: TRACE HIERARCHY:',
      'L07: ',
      'L08: └─ [+] [GEN] generation',
      `L09:        ${SEP}`,
      'L10:        ',
      'L11:        OUTPUT:',
      'L12:        ',
      'L13:        hi',
    ]);
  });
});

describe('trace snapshots', () => {
  const hierarchy = [
    node('span-root', '$ai_span', { $ai_span_name: 'agent run', $ai_latency: 2.5, $ai_input_state: { question: 'Weather in Oslo?' } }, [
      node('gen-1', '$ai_generation', {
        $ai_model: 'gpt-4o',
        $ai_latency: 0.81234,
        $ai_total_cost_usd: 0.00125,
        $ai_input: [{ role: 'user', content: 'Weather in Oslo?' }],
        $ai_output_choices: [{ message: { role: 'assistant', tool_calls: [{ function: { name: 'weather', arguments: '{"city": "Oslo"}' } }] } }],
      }),
      node('tool-1', '$ai_span', { $ai_span_name: 'weather', $ai_output_state: { temp: -3 }, $ai_is_error: true }),
      node('ev-1', '$exception', {}),
    ]),
  ];

  it.each([
    ['markers on', {}],
    ['markers off', { include_markers: false }],
    ['collapsed', { collapsed: true }],
    ['max depth 1 with line numbers', { max_depth: 1, include_line_numbers: true }],
  ])('%s', (_label, options) => {
    expect(render('$ai_trace', traceData(hierarchy, { $ai_span_name: 'weather bot' }), options)).toMatchSnapshot();
  });
});
