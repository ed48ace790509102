import { describe, expect, it } from 'vitest';
import { compileHogQL } from './hogql.compiler.js';
import { QueryTooComplexError } from '../hogql.errors.js';
import { parseHogQLSelect } from '../parse/hogql.parser.js';

// Parses take turns by environment; these all count against one.
const TEST_ENVIRONMENT = 1;

const compile = async (query: string) => compileHogQL(await parseHogQLSelect(TEST_ENVIRONMENT, query), { variables: {}, timezone: 'UTC' });

describe('compileHogQL within its bounds', () => {
  it('refuses WITH expressions that name each other twice over, however short the text', async () => {
    const steps = Array.from({ length: 40 }, (_, index) => `a${index} + a${index} AS a${index + 1}`);
    const error = await compile(`WITH 1 AS a0, ${steps.join(', ')} SELECT a40`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(QueryTooComplexError);
    expect((error as QueryTooComplexError).message).toBe('Invalid HogQL query: the query is too complex to compile.');
    expect((error as QueryTooComplexError).extensions).toMatchObject({ code: 'query_too_complex', attr: 'query', status: 400 });
  });

  it('refuses calls that repeat their arguments’ SQL, nested until it outgrows its bound', async () => {
    const nested = Array.from({ length: 30 }).reduce<string>((inner) => `substring('abc', length(${inner}))`, "'abc'");
    await expect(compile(`SELECT ${nested}`)).rejects.toBeInstanceOf(QueryTooComplexError);
  });

  it('compiles a WITH expression named a few times, as real queries do', async () => {
    const steps = Array.from({ length: 8 }, (_, index) => `a${index} + a${index} AS a${index + 1}`);
    await expect(compile(`WITH 1 AS a0, ${steps.join(', ')} SELECT a8`)).resolves.toMatchObject({ columns: [{ name: 'a8' }] });
  });
});
