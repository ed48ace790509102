import { describe, expect, it } from 'vitest';
import { codePointLength, indexAfterCodePoints, indexOfLastCodePoints, sliceCodePoints, utf8Base64 } from './code-points.js';
import { literalEval } from './python-literal.parser.js';
import { pyFixed, pyFloatRepr, pyJsonDumps, pyJsonDumpsCapped, pyRepr, pyReprCapped, pyStr, withThousands } from './python.format.js';
import { NotJsonSerializableError, PyDict } from './python.values.js';

describe('Python number formatting', () => {
  it.each([
    [1.23456, 2, '1.23'],
    [0.1, 2, '0.10'],
    [10, 2, '10.00'],
    [0.45, 2, '0.45'],
    [0.0023, 4, '0.0023'],
    [1.23456, 4, '1.2346'],
    [0, 4, '0.0000'],
    // Exact binary ties round half to even (JavaScript's toFixed rounds them up).
    [0.125, 2, '0.12'],
    [0.375, 2, '0.38'],
    [2.5, 0, '2'],
    [3.5, 0, '4'],
    [0.5, 0, '0'],
    // 1.005 is stored just below the tie.
    [1.005, 2, '1.00'],
    [-0.001, 2, '-0.00'],
    [1e21, 2, '1000000000000000000000.00'],
  ])('format(%d, .%if) = %s', (x, digits, expected) => {
    expect(pyFixed(x, digits)).toBe(expected);
  });

  it.each([
    [1.5, '1.5'],
    [0.1, '0.1'],
    [1e-5, '1e-05'],
    [0.0001, '0.0001'],
    [1e16, '1e+16'],
    [1.5e16, '1.5e+16'],
    [123456789012345.6, '123456789012345.6'],
    [1e15, '1000000000000000.0'],
    [-2.5e-7, '-2.5e-07'],
    [0, '0.0'],
    [-0, '-0.0'],
    [Infinity, 'inf'],
  ])('float repr(%d) = %s', (x, expected) => {
    expect(pyFloatRepr(x)).toBe(expected);
  });

  it('groups thousands', () => {
    expect([1, 999, 1000, 1004, 1234567].map(withThousands)).toEqual(['1', '999', '1,000', '1,004', '1,234,567']);
  });
});

describe('repr and str', () => {
  it.each([
    [null, 'None'],
    [true, 'True'],
    [false, 'False'],
    [3, '3'],
    [0.5, '0.5'],
    ['plain', "'plain'"],
    ["it's", '"it\'s"'],
    ['say "hi"', '\'say "hi"\''],
    [`both ' and "`, `'both \\' and "'`],
    ['tab\tnew\nline\\', "'tab\\tnew\\nline\\\\'"],
    ['\x00\x7f\u00a0é\u200b😀\u{f0000}', "'\\x00\\x7f\\xa0é\\u200b😀\\U000f0000'"],
    [[1, 'a', [null]], "[1, 'a', [None]]"],
    [{ a: 1, 'b c': { d: [] } }, "{'a': 1, 'b c': {'d': []}}"],
  ])('repr(%j) = %s', (value, expected) => {
    expect(pyRepr(value)).toBe(expected);
  });

  it('str() leaves strings alone', () => {
    expect(pyStr('x')).toBe('x');
    expect(pyStr({ x: 'y' })).toBe("{'x': 'y'}");
  });

  it('caps a repr at 500 code points plus ... without rendering the rest', () => {
    expect(pyReprCapped(['x'.repeat(10_000_000)], 500)).toBe(`['${'x'.repeat(498)}...`);
    expect(pyReprCapped(['😀'.repeat(1000)], 3)).toBe("['😀...");
    expect(pyReprCapped([1], 3)).toBe('[1]');
  });
});

describe('json.dumps', () => {
  it('uses Python separators, escapes non-ASCII and keeps key order', () => {
    expect(pyJsonDumps({ b: 1, a: [true, null, 1.5, 'é😀\n"\\\x7f'] })).toBe('{"b": 1, "a": [true, null, 1.5, "\\u00e9\\ud83d\\ude00\\n\\"\\\\\\u007f"]}');
    expect(pyJsonDumps({ a: [1, {}], b: [] }, 2)).toBe('{\n  "a": [\n    1,\n    {}\n  ],\n  "b": []\n}');
    expect(pyJsonDumps('x', 2)).toBe('"x"');
  });

  it('caps output at a length', () => {
    expect(pyJsonDumpsCapped({ blob: 'y'.repeat(5_000_000) }, 20)).toBe('{"blob": "yyyyyyyyyy...');
  });

  it('refuses values of the literal reader that JSON cannot hold', () => {
    const set = literalEval("{'s': {1}}");
    expect(set.ok && set.value instanceof PyDict).toBe(true);
    expect(() => pyJsonDumps(set.ok ? set.value : null)).toThrow(NotJsonSerializableError);
  });
});

describe('ast.literal_eval', () => {
  const dumped = (source: string): string | null => {
    const result = literalEval(source);
    return result.ok ? pyJsonDumps(result.value) : null;
  };

  it.each([
    ["{'a': 1, 'b': [2, 3.0, -4, +5.5, 1e3], 'c': None, 'd': True}", '{"a": 1, "b": [2, 3.0, -4, 5.5, 1000.0], "c": null, "d": true}'],
    ['  [1, 2,]  # trailing comment\n', '[1, 2]'],
    ['[\n  1,  # one\n  2\n]', '[1, 2]'],
    ["{'1': 'a', 2: 'b', 1.5: 'c', None: 'd', False: 'e'}", '{"1": "a", "2": "b", "1.5": "c", "null": "d", "false": "e"}'],
    ["{1: 'a', 1.0: 'b', True: 'c', 2: 'd'}", '{"1": "c", "2": "d"}'],
    ["{'z': 1, 'a': 2, '10': 3, '2': 4}", '{"z": 1, "a": 2, "10": 3, "2": 4}'],
    ['[0x1F, 0o17, 0b101, 1_000, 0_0, 12345678901234567890123]', '[31, 15, 5, 1000, 0, 12345678901234567890123]'],
    ['[.5, 5., 1_0.2_5, 1e-7, 2E+20]', '[0.5, 5.0, 10.25, 1e-07, 2e+20]'],
    ['(((1)))', '1'],
    ["((1, 'a'),)", '[[1, "a"]]'],
    ["['a' 'b', \"c\" '''d''', r'\\n', '\\x41\\u00e9\\U0001F600\\101\\q', 'it\\'s']", '["ab", "cd", "\\\\n", "A\\u00e9\\ud83d\\ude00A\\\\q", "it\'s"]'],
    ["'''multi\nline'''", '"multi\\nline"'],
    ["['a\\\nb']", '["ab"]'],
  ])('reads %s', (source, expected) => {
    expect(dumped(source)).toBe(expected);
  });

  it.each([
    ['{"a": true}'],
    ['hello world'],
    ["{'a': x}"],
    ["f'{x}'"],
    ["{'a': 1} {'b': 2}"],
    ['[1, 2'],
    ['007'],
    ['1__0'],
    ['[1]\n[2]'],
    ["b'a' 'b'"],
    ["'unterminated"],
    ["'a\nb'"],
    ['--1'],
    ['[-True]'],
    ['[1 + 2]'],
    ['[1j + 2j]'],
    ['foo()'],
    ['set([1])'],
    ['[*a]'],
    ['{**a}'],
    ['[\\N{BULLET}]'],
    ['\x00[]'],
    [`${'['.repeat(201)}${']'.repeat(201)}`],
  ])('rejects %j', (source) => {
    expect(literalEval(source)).toEqual({ ok: false, typeError: false });
  });

  it.each([["{[1]: 2}"], ['{{}: 1}'], ['{1, [2]}'], ["[{'a': 1}, {(1, [2]): 3}]"]])('reports a TypeError for the unhashable %j', (source) => {
    expect(literalEval(source)).toEqual({ ok: false, typeError: true });
  });

  it('lets a later syntax error win over an earlier unhashable key, as parsing precedes conversion', () => {
    expect(literalEval('[{[1]: 2}, 1 +]')).toEqual({ ok: false, typeError: false });
    expect(literalEval('[{[1]: 2}, x]')).toEqual({ ok: false, typeError: true });
    expect(literalEval('[x, {[1]: 2}]')).toEqual({ ok: false, typeError: false });
  });

  it('reads the other literal kinds', () => {
    expect(literalEval("(1, 'a')").ok).toBe(true);
    expect(literalEval('set()').ok).toBe(true);
    expect(literalEval("b'bytes'").ok).toBe(true);
    expect(literalEval('-1+2j').ok).toBe(true);
    expect(literalEval("{(1, 2): 'tuple key'}").ok).toBe(true);
    expect(literalEval(`${'['.repeat(200)}${']'.repeat(200)}`).ok).toBe(true);
  });
});

describe('code points', () => {
  it('counts, slices and indexes by code point', () => {
    const text = 'a😀b\ud800c';
    expect(codePointLength(text)).toBe(5);
    expect(codePointLength('plain')).toBe(5);
    expect(sliceCodePoints(text, 2)).toBe('a😀');
    expect(indexAfterCodePoints(text, 2)).toBe(3);
    expect(indexOfLastCodePoints(text, 4)).toBe(1);
    expect(utf8Base64('é😀')).toBe(Buffer.from([0xc3, 0xa9, 0xf0, 0x9f, 0x98, 0x80]).toString('base64'));
  });
});
