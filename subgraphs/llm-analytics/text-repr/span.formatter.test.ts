import { describe, expect, it } from 'vitest';
import { render, renderLines, RULE, SEP, span } from './text-repr.fixture.js';

const spanLines = (properties: Record<string, unknown>, options?: unknown) => renderLines('$ai_span', span(properties), options);
/** The rendered body of an input state (after the title, rule, separator, ``, label and ``). */
const inputState = (state: unknown, options?: unknown) => spanLines({ $ai_input_state: state }, options).slice(6);

describe('$ai_span layout (3.5.8)', () => {
  it('starts with the upper-cased name and a rule of 80 equals signs', () => {
    expect(spanLines({ $ai_span_name: 'retrieve docs' })).toEqual(['RETRIEVE DOCS', RULE]);
    expect(spanLines({})).toEqual(['SPAN', RULE]);
    expect(spanLines({ $ai_span_name: null })).toEqual(['SPAN', RULE]);
    expect(spanLines({ $ai_span_name: 7 })).toEqual(['7', RULE]);
  });

  it('renders error, input state and output state in order', () => {
    expect(spanLines({ $ai_span_name: 'agent', $ai_error: 'boom', $ai_input_state: 'question', $ai_output_state: 'answer' })).toEqual([
      'AGENT',
      RULE,
      SEP,
      '',
      'ERROR:',
      '',
      'boom',
      SEP,
      '',
      'INPUT STATE:',
      '',
      'question',
      SEP,
      '',
      'OUTPUT STATE:',
      '',
      'answer',
    ]);
  });

  it.each([
    ['an object as indented JSON', { code: 1, msg: 'é' }, ['{', '  "code": 1,', '  "msg": "\\u00e9"', '}']],
    ['a list with str()', ['a', null], ["['a', None]"]],
    ['a number with str()', 500, ['500']],
    ['true with str()', true, ['True']],
  ])('shows an error given as %s', (_label, error, expected) => {
    expect(spanLines({ $ai_error: error }).slice(6)).toEqual(expected);
  });

  it('ignores $ai_is_error and empty errors', () => {
    expect(spanLines({ $ai_is_error: true, $ai_error: '' })).toEqual(['SPAN', RULE]);
  });

  it.each([[''], [[]], [{}], [null], [0], [false]])('omits an empty state %j', (state) => {
    expect(render('$ai_span', span({ $ai_input_state: state, $ai_output_state: state }))).toBe(`SPAN\n${RULE}`);
  });
});

describe('span states (3.5.8)', () => {
  it.each([
    ['a plain string', 'just text', ['just text']],
    ['a JSON string (true/false/null are not Python literals)', '{"a": true}', ['{"a": true}']],
    [
      'a Python dict literal',
      "{'query': 'x', 'k': 3, 'f': 1.0, 'ok': True, 'n': None, 't': (1, 2)}",
      ['{', '  "query": "x",', '  "k": 3,', '  "f": 1.0,', '  "ok": true,', '  "n": null,', '  "t": [', '    1,', '    2', '  ]', '}'],
    ],
    ['a Python list literal', "[1, 'two', [], {}]", ['[', '  1,', '  "two",', '  [],', '  {}', ']']],
    ['a Python tuple literal (not a dict or list)', "(1, 'a')", ["(1, 'a')"]],
    ['a literal with an unhashable key', "{[1]: 'x'}", ['[UNABLE_TO_PARSE: str]']],
    ['a literal holding a set', "{'tags': {'a', 'b'}}", ['[UNABLE_TO_PARSE: str]']],
    ['a literal holding a complex number', '[1+2j]', ['[UNABLE_TO_PARSE: str]']],
    [
      'a messages array',
      [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'hello' }],
      ['', '[1] USER', '', 'hi', '', SEP, '', '[2] ASSISTANT', '', 'hello'],
    ],
    ['another array', [1, 'a', { b: null }], ['[', '  1,', '  "a",', '  {', '    "b": null', '  }', ']']],
    [
      'a tool call with context',
      {
        __type: 'tool_call_with_context',
        state: { messages: [{ role: 'user', content: 'find x' }], remaining_steps: 3 },
        tool_call: { name: 'search', args: { q: 'x' } },
      },
      ['', '[1] USER', '', 'find x', '', 'Remaining steps: 3', '', 'Tool Call:', '  search(q="x")'],
    ],
    ['a tool call with context without details', { __type: 'tool_call_with_context', state: {}, tool_call: {} }, []],
    ['an object with messages', { messages: [{ type: 'human', content: 'q' }], other: 1 }, ['', '[1] HUMAN', '', 'q']],
    ['an object with an empty messages array', { messages: [], k: 'v' }, ['{', '  "messages": [],', '  "k": "v"', '}']],
    ['a tool result', { type: 'tool', name: 'search', status: 'success', content: 'found 3' }, ['[TOOL RESULT] search (success)', '', 'found 3']],
    ['a bare tool result', { type: 'tool', content: { rows: 2 } }, ['[TOOL RESULT]', '', "{'rows': 2}"]],
    ['another object', { query: 'x', n: 1.5, list: [] }, ['{', '  "query": "x",', '  "n": 1.5,', '  "list": []', '}']],
    ['a number', 42, ['42']],
    ['true', true, ['True']],
  ])('renders %s', (_label, state, expected) => {
    expect(inputState(state)).toEqual(expected);
  });

  it('truncates long string states and JSON states', () => {
    expect(inputState('s'.repeat(3000), { include_markers: false })).toEqual(['s'.repeat(500), '', '... (2000 chars truncated) ...', '', 's'.repeat(500)]);
    // The JSON is 3016 characters: `{`, newline, `  "text": "` (13 in all), 3000 letters, `"`, newline, `}`.
    const json = inputState({ text: 'j'.repeat(3000) }, { include_markers: false }).join('\n');
    expect(json).toBe(`{\n  "text": "${'j'.repeat(487)}\n\n... (2016 chars truncated) ...\n\n${'j'.repeat(497)}"\n}`);
  });

  it('labels the output state', () => {
    expect(spanLines({ $ai_output_state: { done: true } })).toEqual(['SPAN', RULE, SEP, '', 'OUTPUT STATE:', '', '{', '  "done": true', '}']);
  });

  it('matches the snapshot of a LangGraph-like span', () => {
    const text = render(
      '$ai_span',
      span({
        $ai_span_name: 'tools',
        $ai_latency: 0.3,
        $ai_input_state: {
          __type: 'tool_call_with_context',
          state: {
            messages: [
              { type: 'human', content: 'What is 2+2?' },
              { type: 'ai', content: '', tool_calls: [{ name: 'calculator', args: { expression: '2+2' }, id: 'call_1' }] },
            ],
            remaining_steps: 24,
          },
          tool_call: { name: 'calculator', args: { expression: '2+2' }, id: 'call_1', type: 'tool_call' },
        },
        $ai_output_state: "{'messages': [{'content': '4', 'type': 'tool', 'name': 'calculator'}], 'score': 0.5}",
      }),
      { include_line_numbers: true },
    );
    expect(text).toMatchSnapshot();
  });
});
