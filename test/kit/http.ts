/** A REST call as a client makes it; `body` is sent as JSON unless it is already a string. */
export async function api(
  baseUrl: string,
  method: string,
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: any; text: string; headers: Headers }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key) headers.authorization = `Bearer ${options.key}`;
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${baseUrl}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown = undefined;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: response.status, body: parsed, text, headers: response.headers };
}

/** A GraphQL operation over HTTP through the router. */
export async function gql(
  graphqlUrl: string,
  query: string,
  variables: Record<string, unknown> = {},
  key?: string,
): Promise<{ status: number; data: any; errors?: { message: string; extensions?: Record<string, any> }[] }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers.authorization = `Bearer ${key}`;
  const response = await fetch(graphqlUrl, { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  const result = (await response.json()) as { data?: any; errors?: any[] };
  return { status: response.status, data: result.data, errors: result.errors };
}
