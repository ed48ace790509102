import { describe, expect, it } from 'vitest';
import { generation, generationLines, node, render, RULE, SEP, span, traceData } from './text-repr.fixture.js';
import { parseTextReprOptions, renderTextRepr, TEXT_REPR_EVENT_TYPES, TextReprInputError, type TextReprOptions } from './text-repr.js';

const WORKED_EXAMPLE = {
  $ai_input: [{ role: 'user', content: 'Hello' }],
  $ai_output_choices: [{ message: { role: 'assistant', content: 'Hi there' } }],
};

describe('worked example of 3.5.5', () => {
  it('renders the 15 lines exactly', () => {
    expect(generationLines(WORKED_EXAMPLE)).toEqual([
      SEP,
      '',
      'INPUT:',
      '',
      '[1] USER',
      '',
      'Hello',
      '',
      SEP,
      '',
      'OUTPUT:',
      '',
      '[1] ASSISTANT',
      '',
      'Hi there',
    ]);
  });

  it('separates two input messages with an empty line and a separator', () => {
    const lines = generationLines({ ...WORKED_EXAMPLE, $ai_input: [{ role: 'system', content: 'Be brief' }, { role: 'user', content: 'Hello' }] });
    expect(lines.slice(0, 13)).toEqual([SEP, '', 'INPUT:', '', '[1] SYSTEM', '', 'Be brief', '', SEP, '', '[2] USER', '', 'Hello']);
  });

  it('numbers the 15 lines with two-digit padding', () => {
    const lines = generationLines(WORKED_EXAMPLE, { include_line_numbers: true });
    expect(lines).toHaveLength(15);
    expect(lines[0]).toBe(`L01: ${SEP}`);
    expect(lines[1]).toBe('L02: ');
    expect(lines[14]).toBe('L15: Hi there');
  });

  it('reports metadata', () => {
    const data = generation(WORKED_EXAMPLE, { id: 'gen_123' });
    expect(renderTextRepr('$ai_generation', data).metadata).toEqual({
      event_type: '$ai_generation',
      event_id: 'gen_123',
      trace_id: null,
      rendering: 'detailed',
      char_count: render('$ai_generation', data).length,
      truncated: false,
    });
  });
});

describe('validation', () => {
  const NO_TRACE_ID = 'Trace events require an ID (trace.id or trace.properties.$ai_trace_id)';
  const cases: [string, unknown, unknown, string, string | null][] = [
    ['$foo', {}, undefined, '"$foo" is not a valid choice.', 'event_type'],
    ['', {}, undefined, '"" is not a valid choice.', 'event_type'],
    ['$ai_evaluation', {}, undefined, '"$ai_evaluation" is not a valid choice.', 'event_type'],
    ['$ai_generation', undefined, undefined, 'This field is required.', 'data'],
    ['$ai_generation', null, undefined, 'This field may not be null.', 'data'],
    ['$ai_generation', [], undefined, 'Expected a dictionary of items but got type "list".', 'data'],
    ['$ai_trace', 'trace', undefined, 'Expected a dictionary of items but got type "str".', 'data'],
    ['$ai_generation', { id: 'g' }, [], 'Invalid data. Expected a dictionary, but got list.', 'options'],
    ['$ai_generation', { id: 'g' }, { max_length: 0 }, 'Ensure this value is greater than or equal to 1.', 'options__max_length'],
    ['$ai_trace', {}, { truncate_buffer: -1 }, 'Ensure this value is greater than or equal to 0.', 'options__truncate_buffer'],
    ['$ai_span', {}, { max_length: 1.5 }, 'A valid integer is required.', 'options__max_length'],
    ['$ai_span', {}, { max_length: 'ten' }, 'A valid integer is required.', 'options__max_length'],
    ['$ai_span', {}, { max_length: '10.5' }, 'A valid integer is required.', 'options__max_length'],
    ['$ai_span', {}, { max_length: null }, 'This field may not be null.', 'options__max_length'],
    ['$ai_span', {}, { truncated: 'maybe' }, 'Must be a valid boolean.', 'options__truncated'],
    ['$ai_span', {}, { include_metadata: 2 }, 'Must be a valid boolean.', 'options__include_metadata'],
    ['$ai_span', {}, { max_depth: -1 }, 'Ensure this value is greater than or equal to 0.', 'options__max_depth'],
    ['$ai_span', {}, { tools_collapse_threshold: true }, 'A valid integer is required.', 'options__tools_collapse_threshold'],
    ['$ai_span', {}, { include_line_numbers: 'si' }, 'Must be a valid boolean.', 'options__include_line_numbers'],
    ['$ai_trace', {}, undefined, "Trace events require 'trace' object and 'hierarchy' array in data field", null],
    ['$ai_trace', { trace: {}, hierarchy: [] }, undefined, "Trace events require 'trace' object and 'hierarchy' array in data field", null],
    ['$ai_trace', { trace: { id: 't' }, hierarchy: {} }, undefined, "Trace events require 'trace' object and 'hierarchy' array in data field", null],
    ['$ai_trace', { trace: { id: 't' } }, undefined, "Trace events require 'trace' object and 'hierarchy' array in data field", null],
    ['$ai_trace', { trace: { name: 'x' }, hierarchy: [] }, undefined, NO_TRACE_ID, null],
    ['$ai_trace', { trace: { id: '', properties: { $ai_trace_id: null } }, hierarchy: [] }, undefined, NO_TRACE_ID, null],
    ['$ai_trace', { trace: 'abc', hierarchy: [] }, undefined, NO_TRACE_ID, null],
    ['$ai_generation', { id: 'g' }, undefined, "$ai_generation events require 'properties' object in data field", null],
    ['$ai_span', { id: 's', event: '$ai_span' }, undefined, "$ai_span events require 'properties' object in data field", null],
    ['$ai_embedding', { id: 'e' }, undefined, "$ai_embedding events require 'properties' object in data field", null],
    ['$ai_generation', { properties: {} }, undefined, "$ai_generation events require an 'id' field", null],
    ['$ai_span', { id: '', properties: {} }, undefined, "$ai_span events require an 'id' field", null],
    ['$ai_embedding', { id: 0, properties: {} }, undefined, "$ai_embedding events require an 'id' field", null],
  ];

  it.each(cases)('%s %j %j -> %s', (eventType, data, options, message, attr) => {
    let thrown: unknown;
    try {
      renderTextRepr(eventType, data, options);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TextReprInputError);
    expect((thrown as TextReprInputError).message).toBe(message);
    expect((thrown as TextReprInputError).attr).toBe(attr);
  });

  it('checks the event type, then data, then options, then the content of data', () => {
    expect(() => renderTextRepr('$nope', null, { max_length: 0 })).toThrowError('is not a valid choice');
    expect(() => renderTextRepr('$ai_trace', null, { max_length: 0 })).toThrowError('This field may not be null.');
    expect(() => renderTextRepr('$ai_trace', {}, { max_length: 0 })).toThrowError('greater than or equal to 1');
  });

  it('accepts properties of any value (only the key is required)', () => {
    expect(render('$ai_generation', { id: 'g', properties: null })).toBe('');
    expect(render('$ai_generation', { id: 'g', properties: [1, 2] })).toBe('');
  });

  it('exports the four event types', () => {
    expect(TEXT_REPR_EVENT_TYPES).toEqual(['$ai_generation', '$ai_span', '$ai_embedding', '$ai_trace']);
  });
});

describe('parseTextReprOptions', () => {
  const defaults: TextReprOptions = {
    max_length: 2_000_000,
    truncated: true,
    truncate_buffer: 1000,
    include_markers: true,
    collapsed: false,
    include_hierarchy: true,
    max_depth: null,
    tools_collapse_threshold: 5,
    include_line_numbers: false,
  };

  it.each([undefined, null, {}, { unknown: 'ignored', include_metadata: true }])('fills defaults for %j', (options) => {
    expect(parseTextReprOptions(options)).toEqual(defaults);
  });

  it('reads strings as PostHog\'s serializer (DRF) reads them: digits as integers, "yes", "off", 1… as booleans', () => {
    const options = { max_length: ' 10 ', truncated: 'no', truncate_buffer: '0', include_markers: 'off', collapsed: 'yes', include_hierarchy: 0, max_depth: '2', tools_collapse_threshold: '7', include_line_numbers: 'true', include_metadata: 1 };
    expect(parseTextReprOptions(options)).toEqual({
      max_length: 10,
      truncated: false,
      truncate_buffer: 0,
      include_markers: false,
      collapsed: true,
      include_hierarchy: false,
      max_depth: 2,
      tools_collapse_threshold: 7,
      include_line_numbers: true,
    });
  });

  it('keeps valid values', () => {
    const options = {
      max_length: 1,
      truncated: false,
      truncate_buffer: 0,
      include_markers: false,
      collapsed: true,
      include_hierarchy: false,
      max_depth: 0,
      tools_collapse_threshold: 0,
      include_line_numbers: true,
    };
    expect(parseTextReprOptions(options)).toEqual(options);
    expect(parseTextReprOptions({ max_depth: null }).max_depth).toBeNull();
    expect(Object.is(parseTextReprOptions({ truncate_buffer: -0 }).truncate_buffer, 0)).toBe(true);
  });
});

describe('dispatch', () => {
  it('follows event_type, as the API document says, not data.event (PostHog follows the latter)', () => {
    // A span request whose payload has no `event` renders as a span (its title), where PostHog renders a generation.
    expect(render('$ai_span', { id: 's', properties: { $ai_span_name: 'x', $ai_input: 'hi' } }).split('\n').slice(0, 2)).toEqual(['X', RULE]);
    // A generation request whose payload says $ai_span renders as a generation.
    expect(render('$ai_generation', span({ $ai_span_name: 'x', $ai_input: 'hi' })).split('\n').slice(0, 5)).toEqual([SEP, '', 'INPUT:', '', 'hi']);
    expect(render('$ai_embedding', { id: 'e', event: 'custom', properties: {} })).toContain('Embedding vector generated');
    expect(render('$ai_span', { id: 'e', event: '$ai_embedding', properties: { $ai_span_name: 'y' } })).not.toContain('Embedding vector generated');
  });
});

describe('metadata', () => {
  const meta = (type: string, data: unknown) => renderTextRepr(type, data).metadata;

  it('stringifies ids and reads the trace id of events from properties, then data.trace_id', () => {
    expect(meta('$ai_generation', { id: 42, properties: { $ai_trace_id: 7 } })).toMatchObject({ event_id: '42', trace_id: '7' });
    expect(meta('$ai_generation', { id: 'g', trace_id: 't2', properties: {} })).toMatchObject({ event_id: 'g', trace_id: 't2' });
    expect(meta('$ai_generation', { id: 'g', trace_id: 't2', properties: { $ai_trace_id: '' } })).toMatchObject({ trace_id: 't2' });
    expect(meta('$ai_span', { id: 's', properties: {} })).toMatchObject({ event_type: '$ai_span', trace_id: null });
  });

  it('reads the trace id of traces from trace.properties only', () => {
    expect(meta('$ai_trace', { trace: { id: 't1' }, hierarchy: [] })).toMatchObject({ event_type: '$ai_trace', event_id: null, trace_id: null });
    expect(meta('$ai_trace', { id: 'd', trace: { properties: { $ai_trace_id: 't9' } }, hierarchy: [] })).toMatchObject({ event_id: 'd', trace_id: 't9' });
  });

  it('counts code points, not UTF-16 units', () => {
    const data = generation({ $ai_input: '😀😀 café' });
    const { text, metadata } = renderTextRepr('$ai_generation', data);
    expect(text.endsWith('😀😀 café')).toBe(true);
    expect(metadata.char_count).toBe(text.length - 2);
    expect(metadata.char_count).toBe([...text].length);
  });
});

describe('unicode', () => {
  it('truncates by code points and encodes the middle as base64 of its UTF-8 bytes', () => {
    const content = `${'😀'.repeat(6)}é${'😀'.repeat(6)}`;
    const lines = generationLines({ $ai_input: content }, { truncate_buffer: 10 });
    expect(lines.slice(4)).toEqual(['😀'.repeat(5), '', `<<<TRUNCATED|${Buffer.from('😀é😀', 'utf8').toString('base64')}|3>>>`, '', '😀'.repeat(5)]);
  });

  it('escapes non-ASCII in tool-call arguments as \\uXXXX (surrogate pairs for astral characters)', () => {
    const lines = generationLines({ $ai_input: [{ role: 'assistant', tool_calls: [{ function: { name: 'f', arguments: '{"city": "Zürich 😀"}' } }] }] });
    expect(lines).toContain('  - f(city="Z\\u00fcrich \\ud83d\\ude00")');
  });
});

describe('line numbers', () => {
  const withLines = (count: number) => {
    // An input of `count - 4` lines after SEP, '', 'INPUT:', ''.
    const input = Array.from({ length: count - 4 }, (_, i) => `line ${i + 1}`).join('\n');
    return generationLines({ $ai_input: input }, { include_line_numbers: true, truncated: false });
  };

  it.each([
    [9, 'L1: ', 'L9: line 5'],
    [15, 'L01: ', 'L15: line 11'],
    [100, 'L001: ', 'L100: line 96'],
    [1234, 'L0001: ', 'L1234: line 1230'],
  ])('%i lines are padded to the width of the count', (count, first, last) => {
    const lines = withLines(count);
    expect(lines).toHaveLength(count);
    expect(lines[0]).toBe(`${first}${SEP}`);
    expect(lines[count - 1]).toBe(last);
  });
});

describe('max_length sampling', () => {
  const longInput = (count: number) => Array.from({ length: count }, (_, i) => `row ${String(i).padStart(4, '0')} ${'x'.repeat(40)}`).join('\n');

  it('keeps texts that fit (up to the exact length)', () => {
    const text = render('$ai_generation', generation(WORKED_EXAMPLE));
    const exact = renderTextRepr('$ai_generation', generation(WORKED_EXAMPLE), { max_length: text.length });
    expect(exact).toMatchObject({ text, metadata: { truncated: false } });
  });

  it('samples every k-th line deterministically, with a note after the first two lines', () => {
    const data = generation({ $ai_input: longInput(1000) });
    const options = { max_length: 5000, truncated: false, include_line_numbers: true };
    const first = renderTextRepr('$ai_generation', data, options);
    const second = renderTextRepr('$ai_generation', data, options);
    expect(second).toEqual(first);
    expect(first.metadata.truncated).toBe(true);
    expect(first.metadata.char_count).toBe(first.text.length);
    expect(first.text.length).toBeLessThanOrEqual(5000);
    const lines = first.text.split('\n');
    expect(lines.slice(0, 2)).toEqual([`L0001: ${SEP}`, 'L0002: ']);
    expect(lines[2]).toMatch(/^\[SAMPLED VIEW: Showing ~\d+% of 1,004 lines\. Gaps in line numbers indicate omitted content\.\]$/);
    expect(lines.slice(3, 6)).toEqual(['L0003: INPUT:', 'L0004: ', 'L0005: row 0000 ' + 'x'.repeat(40)]);
    const numbers = lines.slice(6).map((line) => Number(/^L(\d+):/.exec(line)?.[1]));
    expect(numbers.every((n, i) => i === 0 || n > (numbers[i - 1] ?? 0))).toBe(true);
    expect(numbers.some((n, i) => i > 0 && n - (numbers[i - 1] ?? 0) > 1)).toBe(true);
  });

  it('reports the sampled share of the lines', () => {
    const { text } = renderTextRepr('$ai_generation', generation({ $ai_input: longInput(1000) }), { max_length: 20000, truncated: false });
    const match = /Showing ~(\d+)% of ([\d,]+) lines/.exec(text);
    const kept = text.split('\n').filter((line) => line.startsWith('row ')).length;
    expect(match?.[2]).toBe('1,004');
    expect(Math.abs(Number(match?.[1]) - (kept / 1000) * 100)).toBeLessThan(5);
  });

  it('applies to every event type', () => {
    const options = { max_length: 3000, truncated: false };
    const spanResult = renderTextRepr('$ai_span', span({ $ai_input_state: longInput(200) }), options);
    const traceResult = renderTextRepr('$ai_trace', traceData([], { $ai_input_state: longInput(200) }), options);
    const embedding = renderTextRepr('$ai_embedding', { id: 'e', event: '$ai_embedding', properties: { $ai_input: longInput(200) } }, options);
    for (const result of [spanResult, traceResult, embedding]) {
      expect(result.metadata.truncated).toBe(true);
      expect(result.text).toContain('[SAMPLED VIEW: ');
      expect(result.text.length).toBeLessThanOrEqual(3000);
    }
  });

  it('cuts hard when the text has too few lines to sample', () => {
    const result = renderTextRepr('$ai_generation', generation({ $ai_output: `😀${'y'.repeat(500)}` }), { max_length: 100, truncated: false });
    expect(result.metadata).toMatchObject({ truncated: true, char_count: 100 });
    // 91 code points of header lines leave 9 for the content: the emoji and 8 letters.
    expect(result.text).toBe([SEP, '', 'OUTPUT:', '', `😀${'y'.repeat(8)}`].join('\n'));
  });
});

describe('big inputs', () => {
  it('renders a 2 MB generation: content truncated around a marker, then sampled to max_length', () => {
    const long = Array.from({ length: 60_000 }, (_, i) => `word${i % 97} lorem ipsum dolor sit amet.`).join(' ').slice(0, 2_000_000);
    expect(long).toHaveLength(2_000_000);
    const data = generation({ $ai_input: [{ role: 'user', content: long }], $ai_output_choices: [{ message: { role: 'assistant', content: 'Done.' } }] });
    const result = renderTextRepr('$ai_generation', data);
    expect(result.metadata.truncated).toBe(true);
    expect(result.metadata.char_count).toBe(result.text.length);
    expect(result.text.length).toBeLessThanOrEqual(2_000_000);
    expect(result.text).toContain('[SAMPLED VIEW: ');

    // Without markers the truncated content fits, and its head and tail survive.
    const plain = renderTextRepr('$ai_generation', data, { include_markers: false });
    expect(plain.metadata.truncated).toBe(false);
    expect(plain.text).toContain(`${long.slice(0, 500)}\n\n... (${long.length - 1000} chars truncated) ...\n\n${long.slice(-500)}`);
    expect(plain.text.endsWith('[1] ASSISTANT\n\nDone.')).toBe(true);

    // Without truncation the content is cut by sampling instead.
    const full = renderTextRepr('$ai_generation', data, { truncated: false, include_markers: false, include_line_numbers: true });
    expect(full.metadata.truncated).toBe(true);
    expect(full.text.length).toBeLessThanOrEqual(2_000_000);
  });

  it('renders a trace of 1,000 spans 12 levels deep', () => {
    // A spine of 12 levels (depths 0-11), the other spans hung under pseudo-random earlier spans above depth 11.
    const nodes: { node: Record<string, unknown>; depth: number }[] = [];
    for (let id = 0; id < 1000; id++) {
      const created = node(`span-${id}`, '$ai_span', { $ai_span_name: `step ${id}`, $ai_latency: id / 100, $ai_input_state: { id } });
      let parentIndex = id < 12 ? id - 1 : Math.floor((((id * 2654435761) % 2 ** 32) / 2 ** 32) * id);
      while (parentIndex >= 0 && (nodes[parentIndex]?.depth ?? 0) >= 11) parentIndex--;
      const parent = parentIndex >= 0 ? nodes[parentIndex] : undefined;
      if (parent) (parent.node.children as unknown[]).push(created);
      nodes.push({ node: created, depth: parent ? parent.depth + 1 : 0 });
    }
    const roots = [nodes[0]?.node];
    const depths = nodes.map((entry) => entry.depth);
    expect(Math.max(...depths)).toBe(11);
    expect(depths.filter((depth) => depth >= 6).length).toBeGreaterThan(100);

    const result = renderTextRepr('$ai_trace', traceData(roots));
    const lines = result.text.split('\n');
    expect(lines.slice(0, 7)).toEqual(['TRACE', RULE, '', SEP, '', 'TRACE HIERARCHY:', '']);
    expect(lines).toHaveLength(1007);
    expect(result.metadata.truncated).toBe(false);
    expect(lines.filter((line) => line.includes('<<<GEN_EXPANDABLE|span-'))).toHaveLength(1000);
    // A node at depth d starts its marker after 3d prefix characters and a 3-character connector.
    const deepest = Math.max(...lines.slice(7).map((line) => (line.indexOf('<<<') - 3) / 3));
    expect(deepest).toBe(11);

    const collapsed = render('$ai_trace', traceData(roots), { collapsed: true }).split('\n');
    expect(collapsed.slice(7, 9)).toEqual(['└─ [SPAN] step 0 (0.00s)', '   ├─ [SPAN] step 1 (0.01s)']);
    expect(collapsed).toHaveLength(1007);
  });
});

describe('hostile and malformed input', () => {
  const junk: unknown[] = [null, 0, 1.5, -3, '', 'x', '{"a":1}', "{'a': [1]}", true, false, [], {}, [null, 'a', 1], { a: null, b: [] }, [{}], [[[]]]];

  it('renders every combination of wrong types without throwing', () => {
    let rendered = 0;
    for (const a of junk) {
      for (const b of junk) {
        for (const eventName of ['$ai_generation', '$ai_span', '$ai_embedding', a]) {
          const properties = {
            $ai_input: a,
            $ai_output: b,
            $ai_output_choices: [a, { message: b }, { role: a, content: b, tool_calls: a }],
            $ai_tools: [
              a,
              { function: b },
              { name: a, description: b, input_schema: { properties: { p: a, q: { type: b } }, required: a } },
              { functionDeclarations: [a] },
            ],
            $ai_error: a,
            $ai_is_error: b,
            $ai_input_state: a,
            $ai_output_state: b,
            $ai_span_name: a,
          };
          const data = { id: 'x', event: eventName, properties };
          for (const type of ['$ai_generation', '$ai_span', '$ai_embedding']) {
            expect(typeof render(type, data)).toBe('string');
            rendered++;
          }
          const blocks = [a, b, { type: a, text: b, content: a }, { type: 'tool_use', name: a, input: b, partial_json: a }];
          const messages = [{ role: a, type: b, content: blocks }, a];
          expect(typeof render('$ai_generation', generation({ $ai_input: messages, $ai_output_choices: { choices: [a, b] } }))).toBe('string');
          const event = { event: eventName, id: a, properties: { $ai_latency: a, $ai_total_cost_usd: b, $ai_model: a } };
          const hierarchy = [a, { event: a, children: b }, { event, children: [b, { id: a }] }];
          const trace = traceData(hierarchy, { $ai_error: a, $ai_input_state: b, $ai_span_name: a }, { traceName: b });
          expect(typeof render('$ai_trace', trace, { include_markers: false })).toBe('string');
          expect(typeof render('$ai_trace', trace, { include_hierarchy: false })).toBe('string');
          rendered += 3;
        }
      }
    }
    expect(rendered).toBe(junk.length * junk.length * 4 * 6);
  });

  it('survives nesting 100,000 levels deep everywhere', () => {
    let chain: Record<string, unknown> = node('n99999', '$ai_span');
    for (let i = 99_998; i >= 0; i--) chain = node(`n${i}`, '$ai_span', {}, [chain]);
    let deepArray: unknown[] = [];
    for (let i = 0; i < 100_000; i++) deepArray = [deepArray];
    let deepContent: unknown = 'leaf';
    for (let i = 0; i < 100_000; i++) deepContent = { content: deepContent };

    const tree = renderTextRepr('$ai_trace', traceData([chain]), { collapsed: true });
    expect(tree.metadata.truncated).toBe(true);
    expect(tree.text.length).toBeLessThanOrEqual(2_000_000);
    expect(render('$ai_trace', traceData([chain]), { collapsed: true, max_depth: 3 }).split('\n').slice(7)).toEqual([
      '└─ [SPAN] span',
      '   └─ [SPAN] span',
      '      └─ [SPAN] span',
      '           [... max depth reached]',
    ]);

    const properties = {
      $ai_input: [{ role: 'user', content: deepContent }, { role: 'user', content: deepArray, tool_calls: [{ name: 'f', args: { a: deepArray } }] }],
      $ai_error: { nested: deepArray },
      $ai_tools: [{ name: 't', description: deepArray, input_schema: deepArray }],
    };
    const text = render('$ai_generation', generation(properties));
    expect(text).toContain("{'content': {'content': ");
    expect(text).toContain('[...]');
    const deepSpan = span({ $ai_error: deepArray, $ai_input_state: { deep: deepArray }, $ai_output_state: '['.repeat(100_000) });
    expect(render('$ai_span', deepSpan)).toContain('INPUT STATE:');
    expect(render('$ai_generation', generation({ $ai_input: { deep: deepArray } }))).toContain('[Unparsed input format: dict]');
  });

  it('treats inherited property names as plain data', () => {
    const json = '{"id": "g", "properties": {"__proto__": {"$ai_input": "evil"}, "constructor": 1, "$ai_input": [{"role": "toString", "content": "x"}]}}';
    const data = JSON.parse(json) as unknown;
    expect(render('$ai_generation', data).split('\n').slice(4, 7)).toEqual(['[1] TOSTRING', '', 'x']);
    expect(render('$ai_generation', { id: 'g', properties: {} })).toBe('');
  });
});
