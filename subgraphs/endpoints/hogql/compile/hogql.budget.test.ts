import { describe, expect, it } from 'vitest';
import { compileHogQL } from './hogql.compiler.js';
import { QueryTooComplexError } from '../hogql.errors.js';
import { MAX_COMPILED_NODES, MAX_QUERY_SQL_CHARS } from '../hogql.limits.js';
import { parseHogQLSelect } from '../parse/hogql.parser.js';

// Parses take turns by environment; these all count against one.
const TEST_ENVIRONMENT = 1;

const compile = async (query: string) => compileHogQL(await parseHogQLSelect(TEST_ENVIRONMENT, query), { variables: {}, timezone: 'UTC' });

const refusal = (query: string): Promise<QueryTooComplexError> =>
  compile(query).then(
    () => {
      throw new Error('The query compiled');
    },
    (caught: unknown) => caught as QueryTooComplexError,
  );

const PAST_NODES = `Invalid HogQL query: the query is too complex to compile (more than ${MAX_COMPILED_NODES} expression nodes).`;
const PAST_SQL = `Invalid HogQL query: the query is too complex to compile (more than ${MAX_QUERY_SQL_CHARS} characters of SQL).`;

/** Each step names the one before twice, and substring() repeats its argument's SQL: a6 alone compiles to a long SQL. */
const SUBSTRING_CHAIN = `WITH 'abc' AS a0, ${Array.from({ length: 6 }, (_, index) => `substring(a${index}, length(a${index})) AS a${index + 1}`).join(', ')}`;

const columnsOfA6 = (count: number) => `${SUBSTRING_CHAIN} SELECT ${Array<string>(count).fill('a6').join(', ')}`;

describe('compileHogQL within its bounds', () => {
  it('refuses WITH expressions that name each other twice over, however short the text', async () => {
    const steps = Array.from({ length: 40 }, (_, index) => `a${index} + a${index} AS a${index + 1}`);
    const error = await refusal(`WITH 1 AS a0, ${steps.join(', ')} SELECT a40`);
    expect(error).toBeInstanceOf(QueryTooComplexError);
    expect(error.message).toBe(PAST_NODES);
    expect(error.extensions).toMatchObject({ code: 'query_too_complex', attr: 'query', status: 400 });
    expect(error.spent?.nodes).toBe(MAX_COMPILED_NODES + 1);
  });

  it('refuses one expression whose calls repeat their arguments’ SQL past the bound', async () => {
    await expect(refusal(`${SUBSTRING_CHAIN} SELECT substring(a6, length(a6))`)).resolves.toMatchObject({ message: PAST_SQL });
  });

  it('refuses a WITH expression named in many columns once their SQL passes its bound, stopping in the column that passed it', async () => {
    const one = (await compile(columnsOfA6(1))).sql.length;
    const error = await refusal(columnsOfA6(140));
    expect(error).toBeInstanceOf(QueryTooComplexError);
    expect(error.message).toBe(PAST_SQL);
    expect(error.extensions).toMatchObject({ code: 'query_too_complex', attr: 'query', status: 400 });
    expect(error.spent!.sqlChars).toBeGreaterThan(MAX_QUERY_SQL_CHARS);
    expect(error.spent!.sqlChars).toBeLessThan(MAX_QUERY_SQL_CHARS + one);
  });

  it('does the same work before refusing, however many more columns the query asks', async () => {
    const [fewer, more] = await Promise.all([refusal(columnsOfA6(140)), refusal(columnsOfA6(420))]);
    expect(fewer.spent!.nodes).toBeLessThan(MAX_COMPILED_NODES);
    expect(more.spent).toEqual(fewer.spent);
  });

  it.each([
    ['an alias named again', 'SELECT a6 AS x, x'],
    ['a column named by its position', 'SELECT a6 ORDER BY 1'],
  ])('counts the SQL of %s, written again without being compiled', async (_what, select) => {
    await expect(refusal(`${SUBSTRING_CHAIN} ${select}`)).resolves.toMatchObject({ message: PAST_SQL });
  });

  it('counts each column a `*` expands to as a node', async () => {
    const columns = Array.from({ length: 250 }, (_, index) => `1 AS c${index}`).join(', ');
    const stars = Array<string>(Math.ceil(MAX_COMPILED_NODES / 250) + 1).fill('*').join(', ');
    await expect(refusal(`SELECT ${stars} FROM (SELECT ${columns})`)).resolves.toMatchObject({ message: PAST_NODES });
  });

  it('compiles WITH expressions named a few times, as real queries do, and one whose SQL is long but within the bound', async () => {
    const steps = Array.from({ length: 8 }, (_, index) => `a${index} + a${index} AS a${index + 1}`);
    await expect(compile(`WITH 1 AS a0, ${steps.join(', ')} SELECT a8`)).resolves.toMatchObject({ columns: [{ name: 'a8' }] });
    await expect(compile(columnsOfA6(1))).resolves.toMatchObject({ columns: [{ name: 'a6' }] });
  });
});
