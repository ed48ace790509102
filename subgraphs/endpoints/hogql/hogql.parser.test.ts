import { describe, expect, it } from 'vitest';
import { HogQLError } from './hogql.errors.js';
import { MAX_QUERY_BYTES } from './hogql.limits.js';
import { parseHogQLSelect } from './hogql.parser.js';

describe('parseHogQLSelect', () => {
  it('answers PostHog’s AST, positions included', async () => {
    const ast = await parseHogQLSelect('SELECT event FROM events');
    expect(ast).toMatchObject({ node: 'SelectQuery', select: [{ node: 'Field', chain: ['event'] }], start: { line: 1, column: 0 } });
  });

  it('parses a UNION ALL into a SelectSetQuery', async () => {
    const ast = await parseHogQLSelect('SELECT 1 UNION ALL SELECT 2');
    expect(ast.node).toBe('SelectSetQuery');
  });

  it('words a syntax error as PostHog does, with the line and column', async () => {
    const error = await parseHogQLSelect('SELECT event\nFROM events WHERE (').catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HogQLError);
    expect((error as HogQLError).message).toMatch(/^Invalid HogQL query: .+ \(line 2, column 20\)$/);
    expect((error as HogQLError).extensions).toMatchObject({ code: 'invalid_input', attr: 'query', status: 400 });
  });

  it('counts columns in characters, not bytes', async () => {
    await expect(parseHogQLSelect("SELECT 'é€😀' FROM x WHERE (")).rejects.toThrow('(line 1, column 28)');
  });

  it('refuses stacked statements', async () => {
    await expect(parseHogQLSelect('SELECT 1; DROP TABLE events')).rejects.toThrow(/^Invalid HogQL query: .*DROP/);
  });

  it('refuses an empty or blank query', async () => {
    await expect(parseHogQLSelect('')).rejects.toThrow('Invalid HogQL query: the query is empty.');
    await expect(parseHogQLSelect('  \n ')).rejects.toThrow('Invalid HogQL query: the query is empty.');
  });

  it('refuses a query over 64 KB', async () => {
    const long = `SELECT '${'x'.repeat(MAX_QUERY_BYTES)}'`;
    await expect(parseHogQLSelect(long)).rejects.toThrow(`longer than ${MAX_QUERY_BYTES} bytes`);
  });

  it('refuses a query too complex for the parser, and parses the next one', async () => {
    await expect(parseHogQLSelect(`SELECT ${Array(3000).fill('1').join(' + ')}`)).rejects.toThrow('Invalid HogQL query: the query is too complex to parse.');
    await expect(parseHogQLSelect('SELECT 1')).resolves.toMatchObject({ node: 'SelectQuery' });
  });

  it('refuses a query nested deeper than 64 levels', async () => {
    await expect(parseHogQLSelect(`SELECT ${'NOT '.repeat(100)}1`)).rejects.toThrow('Query is nested too deeply (more than 64 levels).');
    await expect(parseHogQLSelect(`SELECT ${'NOT '.repeat(40)}1`)).resolves.toMatchObject({ node: 'SelectQuery' });
  });
});
