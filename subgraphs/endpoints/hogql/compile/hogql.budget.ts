import { QueryTooComplexError } from '../hogql.errors.js';
import { MAX_COMPILED_NODES, MAX_QUERY_SQL_CHARS } from '../hogql.limits.js';

/**
 * The work one compilation may do: the expression nodes it visits and the SQL it writes. Both are
 * counted as the work is done, so that a short query that multiplies (a WITH expression compiled
 * wherever it is named, an alias or an argument whose SQL is repeated) stops at the bound instead
 * of building all of its SQL first; the compiler runs on the event loop.
 */
export class CompileBudget {
  private nodes = 0;
  private chars = 0;

  /** Counts one expression node compiled. */
  node(): void {
    if (++this.nodes > MAX_COMPILED_NODES) throw this.exceeded(`${MAX_COMPILED_NODES} expression nodes`);
  }

  /**
   * Compiles one piece of SQL (an expression, a query) and counts what it adds to the pieces
   * compiled inside it, which counted themselves: so the count follows the SQL written, at every
   * level, and ends at the length of the statement, however many times a piece reappears in it.
   * A string knows its length without being flattened, so counting costs nothing.
   */
  write<Piece extends { sql: string }>(compile: () => Piece): Piece {
    const before = this.chars;
    const piece = compile();
    this.chars = before + Math.max(piece.sql.length, this.chars - before);
    if (this.chars > MAX_QUERY_SQL_CHARS) throw this.exceeded(`${MAX_QUERY_SQL_CHARS} characters of SQL`);
    return piece;
  }

  /** Counts SQL written again as it is, with nothing compiled: a column out of `*`, a column named by its position. */
  reuse<Piece extends { sql: string }>(piece: Piece): Piece {
    this.node();
    return this.write(() => piece);
  }

  private exceeded(limit: string): QueryTooComplexError {
    return new QueryTooComplexError('compile', { limit, spent: { nodes: this.nodes, sqlChars: this.chars } });
  }
}
