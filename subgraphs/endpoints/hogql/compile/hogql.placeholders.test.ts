import { describe, expect, it } from 'vitest';
import { compileHogQL, placeholdersOf } from './hogql.compiler.js';
import { parseHogQLSelect } from '../parse/hogql.parser.js';
import type { VariableValue } from '../hogql.types.js';

// Parses take turns by environment; these all count against one.
const TEST_ENVIRONMENT = 1;

async function compile(query: string, variables: Record<string, VariableValue>) {
  return compileHogQL(await parseHogQLSelect(TEST_ENVIRONMENT, query), { variables });
}

describe('placeholdersOf', () => {
  it('answers the code names used, once each, in order; {variables.x} names x', async () => {
    const ast = await parseHogQLSelect(TEST_ENVIRONMENT, 'SELECT {a}, {variables.b} FROM events WHERE event = {a} AND timestamp > {variables.since} LIMIT {n}');
    expect(placeholdersOf(ast)).toEqual(['a', 'b', 'since', 'n']);
  });

  it('answers none for a query without placeholders', async () => {
    expect(placeholdersOf(await parseHogQLSelect(TEST_ENVIRONMENT, 'SELECT 1'))).toEqual([]);
  });

  it('refuses a placeholder that is an expression', async () => {
    expect(() => placeholdersOf({ node: 'SelectQuery', select: [{ node: 'Placeholder', expr: { node: 'Constant', value: 1 } }] })).toThrow(
      'Unsupported placeholder: use {name} or {variables.name}',
    );
  });
});

describe('compileHogQL', () => {
  describe('placeholders', () => {
    it('binds each value with a cast of its declared type', async () => {
      const compiled = await compile('SELECT {s}, {n}, {f}, {b}', {
        s: { value: "x' or 1=1 --", type: 'String' },
        n: { value: 3, type: 'Number' },
        f: { value: 2.5, type: 'Number' },
        b: { value: true, type: 'Boolean' },
      });
      expect(compiled.sql).toBe('SELECT $1::text AS "_c1", $2::bigint AS "_c2", $3::float8 AS "_c3", $4::boolean AS "_c4" LIMIT $5::bigint');
      expect(compiled.values.slice(0, 4)).toEqual(["x' or 1=1 --", 3, 2.5, true]);
      expect(compiled.columns.map((column) => column.type)).toEqual(['String', 'Integer', 'Float', 'Boolean']);
    });

    it('takes the type from the value when none is declared', async () => {
      const compiled = await compile('SELECT {s}, {n}', { s: { value: 'a' }, n: { value: 1 } });
      expect(compiled.columns.map((column) => column.type)).toEqual(['String', 'Integer']);
    });

    it('binds a List as one array: x IN {list} is x = ANY($n::text[])', async () => {
      const compiled = await compile('SELECT count() FROM events WHERE event IN {events}', { events: { value: ['a', 'b'], type: 'List' } });
      expect(compiled.sql).toContain('("_t1"."event" = ANY($1::text[]))');
      expect(compiled.values[0]).toEqual(['a', 'b']);
    });

    it('binds a numeric List as numbers', async () => {
      const compiled = await compile('SELECT count() FROM groups WHERE index IN {indexes}', { indexes: { value: [0, 1], type: 'List' } });
      expect(compiled.sql).toContain('= ANY($1::bigint[])');
    });

    it('reads a Date as a point in time, in the team’s zone without one of its own', async () => {
      const compiled = await compile('SELECT count() FROM events WHERE timestamp >= {since}', { since: { value: '2024-01-01', type: 'Date' } });
      expect(compiled.sql).toContain('("_t1"."timestamp" >= ($1::timestamp AT TIME ZONE $2::text))');
      expect(compiled.values.slice(0, 2)).toEqual(['2024-01-01', 'UTC']);
    });

    it('binds NULL for a null value', async () => {
      const compiled = await compile('SELECT {x}', { x: { value: null, type: 'String' } });
      expect(compiled.sql).toMatch(/^SELECT NULL AS "_c1"/);
    });

    it('refuses a placeholder without a value', async () => {
      await expect(compile('SELECT {variables.who}', {})).rejects.toThrow("Required variable 'who' not provided");
    });

    it.each([
      ['Number', '3', "Variable 'v' must be a Number, got the string \"3\""],
      ['String', 3, "Variable 'v' must be a String, got a number"],
      ['Boolean', 'true', "Variable 'v' must be a Boolean, got the string \"true\""],
      ['List', 'a', "Variable 'v' must be a List, got the string \"a\""],
      ['Date', 'soon', "Variable 'v' must be a Date, got the string \"soon\""],
      ['Number', Number.NaN, "Variable 'v' must be a Number, got a number"],
    ] as const)('refuses a value that does not fit its type (%s, %s)', async (type, value, message) => {
      await expect(compile('SELECT {v}', { v: { value, type } })).rejects.toThrow(message);
    });

    it('refuses a list of mixed types and an object', async () => {
      await expect(compile('SELECT {v}', { v: { value: ['a', 1], type: 'List' } })).rejects.toThrow("Variable 'v' must be a list of values of one type");
      await expect(compile('SELECT {v}', { v: { value: { a: 1 } } })).rejects.toThrow("Variable 'v' must be a string, number, boolean, date or list");
    });

    it('refuses a LIMIT variable that is no whole number', async () => {
      await expect(compile('SELECT 1 LIMIT {n}', { n: { value: 1.5, type: 'Number' } })).rejects.toThrow('LIMIT must be a whole number');
    });
  });
});
