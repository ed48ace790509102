import pg from 'pg';

/** One statement on the test database, for arranging what the API cannot (staff flags, the clock). */
export async function sql<T extends pg.QueryResultRow = Record<string, unknown>>(databaseUrl: string, text: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
}
