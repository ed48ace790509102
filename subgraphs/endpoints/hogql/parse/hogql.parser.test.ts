import { describe, expect, it } from 'vitest';
import { HogQLError, QueryTooComplexError } from '../hogql.errors.js';
import { MAX_QUERY_BYTES } from '../hogql.limits.js';
import { parseHogQLSelect } from './hogql.parser.js';

// Parses take turns by environment; these all count against one.
const TEST_ENVIRONMENT = 1;

describe('parseHogQLSelect', () => {
  it('answers PostHog’s AST, positions included', async () => {
    const ast = await parseHogQLSelect(TEST_ENVIRONMENT, 'SELECT event FROM events');
    expect(ast).toMatchObject({ node: 'SelectQuery', select: [{ node: 'Field', chain: ['event'] }], start: { line: 1, column: 0 } });
  });

  it('parses a UNION ALL into a SelectSetQuery', async () => {
    const ast = await parseHogQLSelect(TEST_ENVIRONMENT, 'SELECT 1 UNION ALL SELECT 2');
    expect(ast.node).toBe('SelectSetQuery');
  });

  it('words a syntax error as PostHog does, with the line and column', async () => {
    const error = await parseHogQLSelect(TEST_ENVIRONMENT, 'SELECT event\nFROM events WHERE (').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HogQLError);
    expect((error as HogQLError).message).toMatch(/^Invalid HogQL query: .+ \(line 2, column 20\)$/);
    expect((error as HogQLError).extensions).toMatchObject({ code: 'invalid_input', attr: 'query', status: 400 });
  });

  it('counts columns in characters, not bytes', async () => {
    await expect(parseHogQLSelect(TEST_ENVIRONMENT, "SELECT 'é€😀' FROM x WHERE (")).rejects.toThrow('(line 1, column 28)');
  });

  it('refuses stacked statements', async () => {
    await expect(parseHogQLSelect(TEST_ENVIRONMENT, 'SELECT 1; DROP TABLE events')).rejects.toThrow(/^Invalid HogQL query: .*DROP/);
  });

  it('refuses an empty or blank query', async () => {
    await expect(parseHogQLSelect(TEST_ENVIRONMENT, '')).rejects.toThrow('Invalid HogQL query: the query is empty.');
    await expect(parseHogQLSelect(TEST_ENVIRONMENT, '  \n ')).rejects.toThrow('Invalid HogQL query: the query is empty.');
  });

  it('refuses a query over 64 KB', async () => {
    const long = `SELECT '${'x'.repeat(MAX_QUERY_BYTES)}'`;
    await expect(parseHogQLSelect(TEST_ENVIRONMENT, long)).rejects.toThrow(`longer than ${MAX_QUERY_BYTES} bytes`);
  });

  it('refuses a query that runs the parser out of stack as query_too_complex, and parses the next one', async () => {
    const error = await parseHogQLSelect(TEST_ENVIRONMENT, `SELECT ${Array(3000).fill('1').join(' + ')}`).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(QueryTooComplexError);
    expect((error as HogQLError).message).toBe('Invalid HogQL query: the query is too complex to parse.');
    expect((error as HogQLError).extensions).toMatchObject({ code: 'query_too_complex', attr: 'query', status: 400 });
    await expect(parseHogQLSelect(TEST_ENVIRONMENT, 'SELECT 1')).resolves.toMatchObject({ node: 'SelectQuery' });
  });

  it('refuses a query the parser cannot finish within its budget, and parses the next one', async () => {
    // A short text that PostHog's parser takes many budgets over: nested calls.
    const nested = `SELECT ${'f('.repeat(60)}1${')'.repeat(60)}`;
    await expect(parseHogQLSelect(TEST_ENVIRONMENT, nested)).rejects.toBeInstanceOf(QueryTooComplexError);
    await expect(parseHogQLSelect(TEST_ENVIRONMENT, 'SELECT 1')).resolves.toMatchObject({ node: 'SelectQuery' });
  });

  it("shares the workers between environments: one running parses to the budget leaves another its turn", async () => {
    const finished: string[] = [];
    const nested = `SELECT ${'f('.repeat(60)}1${')'.repeat(60)}`;
    const slow = [1, 2].map((n) => parseHogQLSelect(TEST_ENVIRONMENT + 1, nested).catch(() => finished.push(`slow ${n}`)));
    const quick = parseHogQLSelect(TEST_ENVIRONMENT, 'SELECT 1').then(() => finished.push('quick'));
    await Promise.all([...slow, quick]);
    // Served in arrival order, the two slow parses would hold both workers until their budget ran out.
    expect(finished).toEqual(['quick', 'slow 1', 'slow 2']);
  });

  it('parses off the event loop: timers fire while a long query is parsed', async () => {
    const seen: string[] = [];
    const parsed = parseHogQLSelect(TEST_ENVIRONMENT, `SELECT ${Array(100).fill("event = 'x'").join(' OR ')} FROM events`).then(() => seen.push('parsed'));
    await new Promise((resolve) => setTimeout(resolve, 0)).then(() => seen.push('timer'));
    await parsed;
    expect(seen).toEqual(['timer', 'parsed']);
  });

  it('parses queries side by side and answers each its own tree', async () => {
    const answers = await Promise.all(Array.from({ length: 6 }, (_, index) => parseHogQLSelect(TEST_ENVIRONMENT, `SELECT ${index} AS n`)));
    expect(answers.map((ast) => (ast.select as { expr: { value: number } }[])[0]!.expr.value)).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('refuses a query nested deeper than 64 levels', async () => {
    // Nested arrays: PostHog's parser reads them quickly, unlike long NOT chains, which it reads within the budget only when short.
    await expect(parseHogQLSelect(TEST_ENVIRONMENT, `SELECT ${'['.repeat(100)}1${']'.repeat(100)}`)).rejects.toThrow('Query is nested too deeply (more than 64 levels).');
    await expect(parseHogQLSelect(TEST_ENVIRONMENT, `SELECT ${'['.repeat(40)}1${']'.repeat(40)}`)).resolves.toMatchObject({ node: 'SelectQuery' });
  });
});
