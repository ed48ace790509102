/** A statement and its values, `?` marking each value (knex's rule): what a repository runs, built apart so that its plan can be checked. */
export interface Statement {
  sql: string;
  params: unknown[];
}
