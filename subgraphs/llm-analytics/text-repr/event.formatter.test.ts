import { describe, expect, it } from 'vitest';
import { decodeBase64, generation, generationLines, markerFields, render, renderLines, SEP } from './text-repr.fixture.js';

const A3000 = 'a'.repeat(3000);

describe('content truncation (3.5.2)', () => {
  it('keeps 500 + 500 characters around a base64 marker of the middle 2000', () => {
    const lines = generationLines({ $ai_input: A3000 });
    const marker = `<<<TRUNCATED|${Buffer.from('a'.repeat(2000)).toString('base64')}|2000>>>`;
    expect(lines).toEqual([SEP, '', 'INPUT:', '', 'a'.repeat(500), '', marker, '', 'a'.repeat(500)]);
  });

  it('writes a plain note without markers', () => {
    const lines = generationLines({ $ai_input: A3000 }, { include_markers: false });
    expect(lines.slice(4)).toEqual(['a'.repeat(500), '', '... (2000 chars truncated) ...', '', 'a'.repeat(500)]);
  });

  it('leaves short content, and everything with truncated: false, unchanged', () => {
    expect(generationLines({ $ai_input: 'Short text' }).slice(4)).toEqual(['Short text']);
    expect(generationLines({ $ai_input: A3000 }, { truncated: false }).slice(4)).toEqual([A3000]);
    expect(generationLines({ $ai_input: 'a'.repeat(1000) }).slice(4)).toEqual(['a'.repeat(1000)]);
  });

  it('reports length minus buffer as truncated even for an odd buffer', () => {
    // B = 5: half 2, so 2 + 2 characters are kept, 6 are hidden, and N = 10 - 5 = 5.
    const lines = generationLines({ $ai_input: '0123456789' }, { truncate_buffer: 5, include_markers: false });
    expect(lines.slice(4)).toEqual(['01', '', '... (5 chars truncated) ...', '', '89']);
    const marker = generationLines({ $ai_input: '0123456789' }, { truncate_buffer: 5 })[6] ?? '';
    expect(markerFields(marker, 'TRUNCATED').map((field, i) => (i === 0 ? decodeBase64(field) : field))).toEqual(['234567', '5']);
  });

  it('applies to message contents, string outputs and output choices', () => {
    const text = render('$ai_generation', generation({ $ai_input: [{ role: 'user', content: A3000 }], $ai_output: A3000 }), { include_markers: false });
    expect(text.match(/\.\.\. \(2000 chars truncated\) \.\.\./g)).toHaveLength(2);
  });
});

describe('messages and tool calls (3.5.3)', () => {
  it('renders OpenAI tool calls with JSON-string arguments', () => {
    const lines = generationLines({
      $ai_input: [
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"location": "Paris", "units": "c"}' } }],
        },
        { role: 'tool', content: '18C', tool_call_id: 'c1' },
      ],
    });
    expect(lines).toEqual([
      SEP,
      '',
      'INPUT:',
      '',
      '[1] USER',
      '',
      'Weather in Paris?',
      '',
      SEP,
      '',
      '[2] ASSISTANT',
      '',
      '',
      'Tool calls: 1',
      '  - get_weather(location="Paris", units="c")',
      '',
      SEP,
      '',
      '[3] TOOL',
      '',
      '18C',
    ]);
  });

  it('renders LangChain tool calls ({name, args}) and role from type', () => {
    const toolCalls = [{ name: 'search', args: { q: 'x', n: 3 }, id: '1' }, { args: {} }];
    const lines = generationLines({ $ai_input: [{ type: 'ai', content: 'Let me check', tool_calls: toolCalls }] });
    expect(lines.slice(4)).toEqual(['[1] AI', '', 'Let me check', '', 'Tool calls: 2', '  - search(q="x", n=3)', '  - unknown()']);
  });

  it.each([
    ['an object', { a: 1, b: [true, null], c: 'é' }, 'f(a=1, b=[true, null], c="\\u00e9")'],
    ['a JSON object string', '{"q": "x", "opts": {"deep": 1.5}}', 'f(q="x", opts={"deep": 1.5})'],
    ['an unparseable string', 'not json', 'f(not json)'],
    ['a JSON string that is not an object', '[1, 2]', 'f([1, 2])'],
    ['an empty string', '', 'f()'],
    ['an empty object', {}, 'f()'],
    ['an empty JSON object string', '{}', 'f()'],
    ['null', null, 'f()'],
    ['a number', 5, 'f(5)'],
    ['a list', ['a', 1], "f(['a', 1])"],
  ])('renders arguments given as %s', (_label, args, expected) => {
    expect(generationLines({ $ai_input: [{ role: 'assistant', tool_calls: [{ function: { name: 'f', arguments: args } }] }] })).toContain(`  - ${expected}`);
  });

  it('prints Python None for a null tool name and non-object calls as they are', () => {
    const lines = generationLines({ $ai_input: [{ role: 'assistant', tool_calls: [{ function: { name: null } }, 'raw_call', 7] }] });
    expect(lines.slice(-4)).toEqual(['Tool calls: 3', '  - None()', '  - raw_call', '  - 7']);
  });

  it('skips non-object messages but keeps their index', () => {
    const lines = generationLines({ $ai_input: ['stray', { role: 'user', content: 'B' }, 5] });
    expect(lines).toEqual([SEP, '', 'INPUT:', '', '[2] USER', '', 'B', '', SEP]);
  });

  it('uses unknown as the role of a message without role or type', () => {
    expect(generationLines({ $ai_input: [{ content: 'x' }] }).slice(4, 5)).toEqual(['[1] UNKNOWN']);
  });
});

describe('content extraction (3.5.4)', () => {
  const contentLines = (content: unknown): string[] => generationLines({ $ai_input: [{ role: 'user', content }] }).slice(6);

  it.each([
    ['typed blocks get labels', [{ type: 'text', text: 'A' }, { type: 'reasoning', text: 'B' }], ['A', '', '[REASONING]', '', 'B']],
    ['strings and content blocks', ['first', { type: 'tool_result', content: 'result' }], ['first', '', '[TOOL_RESULT]', '', 'result']],
    ['blocks without text are skipped', [{ type: 'image_url', image_url: { url: 'x' } }, { type: 'text', text: 'caption' }], ['caption']],
    ['an object with text', { text: 'hello', type: 'text' }, ['hello']],
    ['an object with non-string text (str())', { text: { ok: true, n: null } }, ["{'ok': True, 'n': None}"]],
    ['an object with content', { content: [{ type: 'text', text: 'nested' }] }, ['nested']],
    ['an object without text (JSON)', { kind: 'x', 'ü': 1 }, ['{"kind": "x", "\\u00fc": 1}']],
    ['nothing extractable (repr)', [{ type: 'image_url', image_url: { url: "data:it's" } }], [`[{'type': 'image_url', 'image_url': {'url': "data:it's"}}]`]],
    ['a number (repr)', 42, ['42']],
    ['true (repr)', true, ['True']],
  ])('%s', (_label, content, expected) => {
    expect(contentLines(content)).toEqual(expected);
  });

  it('caps the repr fallback at 500 characters plus ...', () => {
    const [line = ''] = contentLines([{ type: 'blob', data: 'z'.repeat(2000) }]);
    expect(line).toHaveLength(503);
    expect(line.startsWith("[{'type': 'blob', 'data': 'zzz")).toBe(true);
    expect(line.endsWith('zzz...')).toBe(true);
  });

  it('renders special blocks inline, joined by blank lines', () => {
    const content = [
      { type: 'text', text: 'Calling tools' },
      { type: 'tool_use', id: 't1', name: 'read_file', input: { path: '/a' } },
      { type: 'tool_use', name: 'grep', input: {}, partial_json: '{"pattern": "x"}' },
      { type: 'tool-call', toolName: 'fetch', input: { url: 'u' } },
      { type: 'function', function: { name: 'skipped' } },
      { content: { toolName: 'lookup', args: '{"k": "v"}' } },
      { content: { result: 42 } },
      'plain string',
    ];
    expect(contentLines(content)).toEqual([
      'Calling tools',
      '',
      'read_file(path="/a")',
      '',
      'grep(pattern="x")',
      '',
      'fetch(url="u")',
      '',
      'lookup(k="v")',
      '',
      '[Tool result: unknown]',
      '',
      'plain string',
    ]);
  });
});

describe('input and output sections (3.5.5)', () => {
  it.each([
    ['a dict', { a: 'é' }, ['[Unparsed input format: dict]', '{"a": "\\u00e9"}']],
    ['an int', 42, ['[Unparsed input format: int]', '42']],
    ['a float', 1.5, ['[Unparsed input format: float]', '1.5']],
    ['a bool', true, ['[Unparsed input format: bool]', 'true']],
  ])('shows input of %s as unparsed', (_label, input, expected) => {
    expect(generationLines({ $ai_input: input })).toEqual([SEP, '', 'INPUT:', '', ...expected]);
  });

  it('cuts unparsed JSON at 500 characters plus ...', () => {
    const last = generationLines({ $ai_input: { blob: 'x'.repeat(1000) } }).at(-1) ?? '';
    expect(last).toBe(`{"blob": "${'x'.repeat(490)}...`);
  });

  it.each([[''], [[]], [{}], [0], [null], [false]])('omits an empty input %j', (input) => {
    expect(render('$ai_generation', generation({ $ai_input: input }))).toBe('');
  });

  it.each([
    ['wrapped choices (xAI)', { $ai_output_choices: { choices: [{ message: { role: 'assistant', content: 'X' } }] } }, ['[1] ASSISTANT', '', 'X']],
    ['direct messages (Anthropic)', { $ai_output_choices: [{ role: 'assistant', content: [{ type: 'text', text: 'Hi' }] }] }, ['[1] ASSISTANT', '', 'Hi']],
    ['a default role', { $ai_output_choices: [{ content: 'no role' }] }, ['[1] ASSISTANT', '', 'no role']],
    ['a null role', { $ai_output_choices: [{ message: { role: null, content: 'r' } }] }, ['[1] UNKNOWN', '', 'r']],
    ['a string output over choices', { $ai_output: 'plain', $ai_output_choices: [{ message: { content: 'ignored' } }] }, ['plain']],
  ])('renders output from %s', (_label, properties, expected) => {
    expect(generationLines(properties)).toEqual([SEP, '', 'OUTPUT:', '', ...expected]);
  });

  it('takes tool calls from function content blocks of an output message', () => {
    const content = [{ type: 'function', function: { name: 'f', arguments: '{"a": 1}' } }];
    const lines = generationLines({ $ai_output_choices: [{ message: { role: 'assistant', content } }] });
    expect(lines.slice(-3)).toEqual(['', 'Tool calls: 1', '  - f(a=1)']);
  });

  it('omits output when no choice is usable', () => {
    expect(render('$ai_generation', generation({ $ai_output_choices: [{ finish_reason: 'stop' }, 'x', null] }))).toBe('');
    expect(render('$ai_generation', generation({ $ai_output: 12, $ai_output_choices: { choices: 'x' } }))).toBe('');
  });
});

describe('error block (3.5.5)', () => {
  const withOutput = { $ai_output: 'partial' };

  it('renders an object error YAML-like after two empty lines, ending with a newline', () => {
    const text = render('$ai_generation', generation({ ...withOutput, $ai_error: { message: 'Rate limit', code: 429 } }));
    expect(text.split('\n')).toEqual([SEP, '', 'OUTPUT:', '', 'partial', '', '', SEP, '', 'ERROR:', '', 'message: Rate limit', 'code: 429', '']);
    expect(text.endsWith('\n')).toBe(true);
  });

  it.each([
    ['a JSON object string', '{"message": "boom", "retry": false}', ['message: boom', 'retry: False']],
    ['a plain string', 'boom', ['boom']],
    ['a JSON string that is not an object', '[1, 2]', ['[1, 2]']],
    ['a number', 500, ['500']],
    ['a list', ['a', 1], ["['a', 1]"]],
    [
      'nested containers',
      { error: { type: 'x', details: [1, { a: null }, [2]], empty: {} }, ok: true },
      ['error:', '  type: x', '  details:', '    - 1', '    -', '      a: None', '    -', '      - 2', '  empty:', 'ok: True'],
    ],
  ])('shows %s', (_label, error, expected) => {
    expect(generationLines({ $ai_error: error })).toEqual(['', SEP, '', 'ERROR:', '', ...expected, '']);
  });

  it('shows a placeholder for $ai_is_error without details', () => {
    expect(generationLines({ $ai_is_error: true })).toEqual(['', SEP, '', 'ERROR:', '', 'An error occurred (no details available)', '']);
    expect(generationLines({ $ai_is_error: true, $ai_error: {} })).toEqual(['', SEP, '', 'ERROR:', '', 'An error occurred (no details available)', '']);
    expect(render('$ai_generation', generation({ $ai_is_error: false, $ai_error: '' }))).toBe('');
  });
});

describe('tools block (3.5.6)', () => {
  const openAiTool = {
    type: 'function',
    function: {
      name: 'get_weather',
      description: 'Get current weather for a location.',
      parameters: { type: 'object', properties: { location: { type: 'string' }, units: { type: 'string' } }, required: ['location'] },
    },
  };
  const tools = (count: number) => Array.from({ length: count }, (_, i) => ({ name: `tool${i}`, description: `Tool ${i}.` }));

  it('lists an OpenAI tool after a separator', () => {
    expect(generationLines({ $ai_tools: [openAiTool] })).toEqual([
      SEP,
      '',
      'AVAILABLE TOOLS: 1',
      '',
      '  get_weather(location: string, units?: string)',
      '    Get current weather for a location.',
    ]);
  });

  it.each([
    [
      'Anthropic',
      [
        {
          name: 'read_file',
          description: 'Read the contents of a file from the filesystem.',
          input_schema: { properties: { file_path: { type: 'string' }, lines: { type: 'string' } }, required: ['file_path'] },
        },
      ],
      ['AVAILABLE TOOLS: 1', '', '  read_file(file_path: string, lines?: string)', '    Read the contents of a file from the filesystem.'],
    ],
    [
      'Google functionDeclarations',
      [
        {
          functionDeclarations: [
            { name: 'search', description: 'Search the web.', parameters: { properties: { query: { type: 'string' } }, required: ['query'] } },
            { name: 'ping' },
          ],
        },
      ],
      ['AVAILABLE TOOLS: 1', '', '  search(query: string)', '    Search the web.', '', '  ping()'],
    ],
    [
      'an object map',
      { a: { name: 'lov-view', description: 'View.', inputSchema: { properties: { p: {} } } }, b: { name: 'mig', description: 'Migrate. Then more.' } },
      ['AVAILABLE TOOLS: 2', '', '  lov-view(p?: any)', '    View.', '', '  mig()', '    Migrate.'],
    ],
    [
      'a mixed list counting non-objects',
      ['not a dict', { name: 'valid_tool', description: 'A valid tool.' }, 123],
      ['AVAILABLE TOOLS: 3', '', '  valid_tool()', '    A valid tool.'],
    ],
    ['only non-objects', ['x'], ['AVAILABLE TOOLS: 1', '']],
    [
      'a multi-line description',
      [{ name: 't', description: 'First sentence here\nSecond line. More' }],
      ['AVAILABLE TOOLS: 1', '', '  t()', '    First sentence here.'],
    ],
    ['no description', [{ name: 'mystery_tool', input_schema: { type: 'object', properties: {} } }], ['AVAILABLE TOOLS: 1', '', '  mystery_tool()']],
    [
      'an unknown shape',
      [{ type: 'code_interpreter' }, { description: 'x' }],
      ['AVAILABLE TOOLS: 2', '', '  code_interpreter()', '    {"type": "code_interpreter"}.', '', '  UNKNOWN()', '    {"description": "x"}.'],
    ],
    [
      'a union type',
      [{ name: 'u', parameters: { properties: { v: { type: ['string', 'null'] } }, required: 'v' } }],
      ['AVAILABLE TOOLS: 1', '', "  u(v: ['string', 'null'])"],
    ],
  ])('lists %s', (_label, aiTools, expected) => {
    expect(generationLines({ $ai_tools: aiTools })).toEqual([SEP, '', ...expected]);
  });

  it.each([['a string'], [42], [true], [[]], [{}]])('shows no block for $ai_tools %j', (aiTools) => {
    expect(render('$ai_generation', generation({ $ai_tools: aiTools }))).toBe('');
  });

  it('keeps 5 tools expanded and collapses 6 into a marker holding the list', () => {
    expect(generationLines({ $ai_tools: tools(5) })).toContain('  tool4()');
    const lines = generationLines({ $ai_tools: tools(6) });
    expect(lines).toHaveLength(3);
    const [heading = '', encoded = ''] = markerFields(lines[2] ?? '', 'TOOLS_EXPANDABLE');
    expect(heading).toBe('AVAILABLE TOOLS: 6');
    expect(decodeBase64(encoded)).toBe(['AVAILABLE TOOLS: 6', ...tools(6).flatMap((_, i) => ['', `  tool${i}()`, `    Tool ${i}.`])].join('\n'));
  });

  it('collapses into a [+] line without markers, and honours the threshold', () => {
    expect(generationLines({ $ai_tools: tools(10) }, { include_markers: false })).toEqual([SEP, '', '[+] AVAILABLE TOOLS: 10']);
    expect(render('$ai_generation', generation({ $ai_tools: tools(3) }), { tools_collapse_threshold: 2 })).toContain('<<<TOOLS_EXPANDABLE|AVAILABLE TOOLS: 3|');
    const zeroThreshold = { tools_collapse_threshold: 0, include_markers: false };
    expect(render('$ai_generation', generation({ $ai_tools: tools(1) }), zeroThreshold)).toContain('[+] AVAILABLE TOOLS: 1');
  });

  it('puts an empty line between tools and input', () => {
    const lines = generationLines({ $ai_tools: [{ name: 'f' }], $ai_input: 'hi' });
    expect(lines).toEqual([SEP, '', 'AVAILABLE TOOLS: 1', '', '  f()', '', SEP, '', 'INPUT:', '', 'hi']);
  });
});

describe('$ai_embedding layout (3.5.7)', () => {
  const embedding = (properties: Record<string, unknown>) => renderLines('$ai_embedding', { id: 'e', event: '$ai_embedding', properties });

  it('shows the input and a fixed output, ending with a newline', () => {
    const lines = embedding({ $ai_input: 'embed me', $ai_output: [0.1, 0.2] });
    expect(lines).toEqual([SEP, '', 'INPUT:', '', 'embed me', '', SEP, '', 'OUTPUT:', '', 'Embedding vector generated', '']);
  });

  it('shows only the output without input, and the error block after it', () => {
    expect(embedding({})).toEqual([SEP, '', 'OUTPUT:', '', 'Embedding vector generated', '']);
    const output = [SEP, '', 'OUTPUT:', '', 'Embedding vector generated', ''];
    expect(embedding({ $ai_is_error: true })).toEqual([...output, '', '', SEP, '', 'ERROR:', '', 'An error occurred (no details available)', '']);
  });
});

describe('rendered text snapshots', () => {
  const cases: [string, Record<string, unknown>, Record<string, unknown>?][] = [
    [
      'full generation',
      {
        $ai_tools: [
          {
            type: 'function',
            function: { name: 'get_weather', description: 'Weather. Uses API.', parameters: { properties: { city: { type: 'string' } }, required: ['city'] } },
          },
        ],
        $ai_input: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: [{ type: 'text', text: 'Weather?' }, { type: 'image_url', image_url: { url: 'x' } }] },
        ],
        $ai_output_choices: [
          { message: { role: 'assistant', content: 'Calling.', tool_calls: [{ function: { name: 'get_weather', arguments: '{"city": "Oslo"}' } }] } },
        ],
        $ai_error: { message: 'timeout', retryable: true },
      },
    ],
    [
      'generation with line numbers and markers off',
      { $ai_input: `${'b'.repeat(1200)}\nend`, $ai_output: 'ok' },
      { include_line_numbers: true, include_markers: false },
    ],
    ['generation with a small truncate buffer', { $ai_input: 'The quick brown fox jumps over the lazy dog' }, { truncate_buffer: 10 }],
  ];

  it.each(cases)('%s', (_label, properties, options) => {
    expect(render('$ai_generation', generation(properties), options)).toMatchSnapshot();
  });
});
