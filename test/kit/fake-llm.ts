import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Local stand-ins for the four language-model providers, speaking their real wire protocols
 * (OpenAI chat completions with streaming, Anthropic messages, Gemini generateContent, OpenRouter),
 * so that the real AI SDK clients run in tests. What a key contains decides the answer:
 * `invalid` → authentication failure, `ratelimited` → 429, `servererror` → 500, `garbage` → an HTML
 * page with status 200, `slow` → an answer after `slowMs`, `broken` → the connection is cut; any
 * other key works. The chat model `gpt-does-not-exist` is a 404, as OpenAI answers an unknown model.
 *
 * A chat completion that offers `tools` follows a script written in its last user message, so that
 * a multi-step assistant runs for real (see `scripted`): `[tool:NAME {json}]` asks for a tool call,
 * `[words:N]` a long answer, `[slow:MS]` a pause before each streamed chunk, `[fail]` a 500.
 * A request mentioning `Write a short title` (and offering no tools) gets `Title: ` and the first
 * five words of the last user message.
 */
export interface FakeLlm {
  /** The `*_BASE_URL` settings that point the platform here. */
  env: Record<string, string>;
  /** Every request received: provider, path, key, parsed body. */
  requests: { provider: string; path: string; key: string; body: any; /** The client closed the connection before the answer ended. */ aborted?: boolean }[];
  /** How many requests the client abandoned before the answer ended (a cancel). */
  aborted(): number;
  /** Resolves once `n` requests have arrived; rejects after `timeoutMs`. */
  waitForRequests(n: number, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const MODELS = {
  openai: ['gpt-4.1-mini', 'gpt-4.1', 'gpt-4o', 'text-embedding-3-small', 'whisper-1', 'o3-mini'],
  anthropic: ['claude-haiku-4-5', 'claude-sonnet-4-5'],
  gemini: ['gemini-2.0-flash-lite', 'gemini-2.5-pro'],
  openrouter: ['openai/gpt-4.1-mini', 'anthropic/claude-haiku-4.5'],
};

export async function startFakeLlm(options: { slowMs?: number } = {}): Promise<FakeLlm> {
  const requests: FakeLlm['requests'] = [];
  const server: Server = createServer((request, response) => {
    void handle(request, response, requests, options.slowMs ?? 5000).catch(() => cut(response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    env: {
      OPENAI_BASE_URL: `${base}/openai/v1`,
      ANTHROPIC_BASE_URL: `${base}/anthropic/v1`,
      GEMINI_BASE_URL: `${base}/gemini/v1beta`,
      OPENROUTER_BASE_URL: `${base}/openrouter/api/v1`,
    },
    requests,
    aborted: () => requests.filter((entry) => entry.aborted).length,
    waitForRequests: async (n, timeoutMs = 5000) => {
      const deadline = Date.now() + timeoutMs;
      while (requests.length < n) {
        if (Date.now() > deadline) throw new Error(`the fake LLM received ${requests.length} requests, not ${n}, within ${timeoutMs} ms`);
        await sleep(10);
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function handle(request: IncomingMessage, response: ServerResponse, requests: FakeLlm['requests'], slowMs: number): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://fake');
  const [, provider = '', ...rest] = url.pathname.split('/');
  const path = `/${rest.join('/')}`;
  const key = keyOf(provider, request);
  const raw = await new Promise<string>((resolve) => {
    let text = '';
    request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    request.on('end', () => resolve(text));
  });
  const body = raw ? JSON.parse(raw) : undefined;
  const entry: FakeLlm['requests'][number] = { provider, path, key, body };
  requests.push(entry);
  // A close before the answer's end that the stand-in did not cause itself is the client going away.
  response.on('close', () => {
    if (!response.writableFinished && !cutByServer.has(response)) entry.aborted = true;
  });

  if (key.includes('broken')) return cut(response);
  if (key.includes('slow')) await new Promise((resolve) => setTimeout(resolve, slowMs));
  if (response.destroyed) return;
  if (key.includes('invalid') || !key) return fail(response, provider, provider === 'gemini' ? 400 : 401);
  if (key.includes('ratelimited')) return fail(response, provider, 429);
  if (key.includes('servererror')) return fail(response, provider, 500);
  if (key.includes('garbage')) return void response.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Welcome to our proxy</body></html>');
  if (body?.model === 'gpt-does-not-exist') {
    return json(response, 404, { error: { message: 'The model `gpt-does-not-exist` does not exist or you do not have access to it.', type: 'invalid_request_error', code: 'model_not_found' } });
  }

  const models = MODELS[provider as keyof typeof MODELS] ?? [];
  if (request.method === 'GET' && path.match(/\/models$/)) {
    if (provider === 'gemini') return json(response, 200, { models: models.map((id) => ({ name: `models/${id}`, displayName: id })) });
    return json(response, 200, { object: 'list', data: models.map((id) => ({ id, object: 'model', created: 1, owned_by: provider })) });
  }
  if (request.method === 'GET' && provider === 'openrouter' && path.endsWith('/key')) return json(response, 200, { data: { label: 'fake', usage: 0 } });
  const prompt = promptText(body);
  const text = !hasTools(body) && prompt.includes('Write a short title') ? `Title: ${words(withoutDirectives(lastUser(body).text)).slice(0, 5).join(' ')}` : fakeSummary(prompt);
  if (provider === 'anthropic' && path.endsWith('/messages')) {
    return json(response, 200, {
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 10, output_tokens: 20 },
    });
  }
  if (provider === 'gemini' && path.includes(':generateContent')) {
    return json(response, 200, {
      candidates: [{ content: { role: 'model', parts: [{ text }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 20, totalTokenCount: 30 },
    });
  }
  if (path.endsWith('/chat/completions')) {
    if (!hasTools(body)) return chatCompletion(response, body, { text, slowMs: 0 });
    const reply = scripted(body);
    return reply === 'fail' ? fail(response, provider, 500) : chatCompletion(response, body, reply);
  }
  return json(response, 404, { error: { message: `no route ${request.method} ${path}` } });
}

function keyOf(provider: string, request: IncomingMessage): string {
  if (provider === 'anthropic') return String(request.headers['x-api-key'] ?? '');
  // The header only: a key in the query string would end up in logged URLs, so the stand-in refuses it.
  if (provider === 'gemini') return String(request.headers['x-goog-api-key'] ?? '');
  return String(request.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
}

/** A text answer, or one tool call; `slowMs` is the pause before each streamed chunk. */
interface Reply {
  text?: string;
  call?: { id: string; name: string; arguments: string };
  slowMs: number;
}

async function chatCompletion(response: ServerResponse, body: any, reply: Reply): Promise<void> {
  const base = { id: 'chatcmpl-fake', created: 1, model: body.model };
  const call = reply.call && { id: reply.call.id, type: 'function', function: { name: reply.call.name, arguments: reply.call.arguments } };
  const finish = call ? 'tool_calls' : 'stop';
  if (!body.stream) {
    return json(response, 200, {
      ...base,
      object: 'chat.completion',
      choices: [{ index: 0, message: call ? { role: 'assistant', content: null, tool_calls: [call] } : { role: 'assistant', content: reply.text }, finish_reason: finish }],
      usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 },
    });
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  // As OpenAI streams a tool call: its id and name first with empty arguments, then the arguments in pieces.
  const deltas: object[] = call
    ? [
        { role: 'assistant', tool_calls: [{ index: 0, ...call, function: { name: call.function.name, arguments: '' } }] },
        ...(call.function.arguments.match(/[\s\S]{1,8}/g) ?? []).map((piece) => ({ tool_calls: [{ index: 0, function: { arguments: piece } }] })),
      ]
    : (reply.text ?? '').split(/(?<= )/).map((word, index) => (index === 0 ? { role: 'assistant', content: word } : { content: word }));
  const chunks = [
    ...deltas.map((delta) => ({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }] })),
    { ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: finish }], usage: { prompt_tokens: 10, completion_tokens: deltas.length, total_tokens: 10 + deltas.length } },
  ];
  for (const chunk of chunks) {
    if (reply.slowMs) await sleep(reply.slowMs);
    if (response.destroyed) return; // the client went away (a cancel): the close listener has recorded it
    response.write(`data: ${JSON.stringify(chunk)}\n\n`);
  }
  response.end('data: [DONE]\n\n');
}

/** Each provider's error body for a status. */
function fail(response: ServerResponse, provider: string, status: number): void {
  const message = status === 429 ? 'Rate limit reached' : status >= 500 ? 'The server had an error' : 'Incorrect API key provided';
  if (provider === 'anthropic') return json(response, status, { type: 'error', error: { type: status === 401 ? 'authentication_error' : 'api_error', message } });
  if (provider === 'gemini') {
    return json(response, status, { error: { code: status, message: status === 400 ? 'API key not valid. Please pass a valid API key.' : message, status: 'INVALID_ARGUMENT', details: [{ reason: status === 400 ? 'API_KEY_INVALID' : 'OTHER' }] } });
  }
  json(response, status, { error: { message, type: status === 401 ? 'invalid_request_error' : 'server_error', code: status === 401 ? 'invalid_api_key' : null } });
}

/** Cuts the connection on purpose, which is not the client aborting. */
const cutByServer = new WeakSet<ServerResponse>();
function cut(response: ServerResponse): void {
  cutByServer.add(response);
  response.destroy();
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

/** All the text the model was given, whatever the protocol. */
function promptText(body: any): string {
  const parts: string[] = [];
  const collect = (value: unknown): void => {
    if (typeof value === 'string') parts.push(value);
    else if (Array.isArray(value)) value.forEach(collect);
    else if (value && typeof value === 'object') for (const [key, item] of Object.entries(value)) if (['content', 'text', 'parts', 'messages', 'contents', 'system', 'systemInstruction'].includes(key)) collect(item);
  };
  collect(body);
  return parts.join('\n');
}

/**
 * A summary in the layout the prompt asks for, citing lines of the text it was given: the first
 * line, a range, a range running past the end, and a line that does not exist.
 */
function fakeSummary(prompt: string): string {
  const lines = prompt.match(/^L\d+:/gm)?.length ?? 0;
  const mode = /8 to 10 bullet/.test(prompt) ? 'detailed' : 'minimal';
  return [
    `# Fake ${mode} summary of ${lines} lines`,
    '',
    '## Summary',
    `- The input starts here [L1].`,
    `- Then it goes on [L1-${Math.min(2, lines)}].`,
    `- It ends past the last line [L${lines}-${lines + 5}].`,
    `- This line does not exist [L${lines + 100}].`,
    '',
    '## Interesting Notes',
    '- None.',
  ].join('\n');
}

const hasTools = (body: any): boolean => Array.isArray(body?.tools) && body.tools.length > 0;
const words = (text: string): string[] => text.split(/\s+/).filter(Boolean);

/** A message's text: a string, or text parts (OpenAI and Anthropic `content`, Gemini `parts`). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  return Array.isArray(content) ? content.map((part) => (typeof part?.text === 'string' ? part.text : '')).join('\n') : '';
}

/** The last user message (the script lives there; system messages are ignored) and its place. */
function lastUser(body: any): { index: number; text: string } {
  const messages: any[] = body?.messages ?? body?.contents ?? [];
  const index = messages.findLastIndex((message) => message?.role === 'user');
  return { index, text: textOf(messages[index]?.content ?? messages[index]?.parts) };
}

/** Where a JSON object starting at `start` ends (after its matching `}`), braces inside strings skipped; -1 if it does not. */
function jsonEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let at = start; at < text.length; at++) {
    const char = text[at];
    if (inString) {
      if (char === '\\') at++;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '{') depth++;
    else if (char === '}' && --depth === 0) return at + 1;
  }
  return -1;
}

/** The `[tool:NAME {json}]` directives in order; one whose JSON is not an object is left as plain text. */
function toolDirectives(text: string): { name: string; arguments: string; start: number; end: number }[] {
  const found: { name: string; arguments: string; start: number; end: number }[] = [];
  const pattern = /\[tool:([a-z_]+)\s*/g;
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    let at = match.index + match[0].length;
    let json = '{}';
    if (text[at] === '{') {
      const end = jsonEnd(text, at);
      if (end < 0) continue;
      json = text.slice(at, end);
      at = end;
    }
    while (/\s/.test(text[at] ?? '')) at++;
    if (text[at] !== ']') continue;
    let args: unknown;
    try {
      args = JSON.parse(json);
    } catch {
      continue;
    }
    if (!args || typeof args !== 'object' || Array.isArray(args)) continue;
    found.push({ name: match[1]!, arguments: JSON.stringify(args), start: match.index, end: at + 1 });
    pattern.lastIndex = at + 1; // a directive quoted inside the JSON is not one
  }
  return found;
}

function withoutDirectives(text: string): string {
  const kept = toolDirectives(text).reduceRight((rest, directive) => rest.slice(0, directive.start) + rest.slice(directive.end), text);
  return kept.replace(/\[(?:words|slow):\d+\]|\[fail\]/g, '').replace(/[ \t]{2,}/g, ' ').trim();
}

/**
 * The scripted assistant of a request offering tools: the next `[tool:…]` directive of the last user
 * message that has no tool result yet becomes a tool call; once all have one, the answer lists the
 * results (`Answer: NAME=content; …`), or echoes the message when there were none.
 */
function scripted(body: any): Reply | 'fail' {
  const messages: any[] = body.messages ?? [];
  const { index, text } = lastUser(body);
  if (text.includes('[fail]')) return 'fail';
  const slowMs = Number(/\[slow:(\d+)\]/.exec(text)?.[1] ?? 0);
  const after = messages.slice(index + 1);
  const results = after.filter((message) => message?.role === 'tool');
  const next = toolDirectives(text)[results.length];
  if (next) {
    if (!body.tools.some((offered: any) => offered?.function?.name === next.name)) return { text: `Unknown tool ${next.name}.`, slowMs };
    // Numbered over the whole conversation so that ids stay unique across turns.
    const id = `call_${messages.flatMap((message) => message?.tool_calls ?? []).length + 1}`;
    return { call: { id, name: next.name, arguments: next.arguments }, slowMs };
  }
  const count = /\[words:(\d+)\]/.exec(text);
  if (count) return { text: `Answer: ${Array.from({ length: Math.min(Number(count[1]), 100_000) }, (_, at) => `w${at + 1}`).join(' ')}`, slowMs };
  const names = new Map<string, string>(after.flatMap((message) => message?.tool_calls ?? []).map((call: any) => [call.id, call.function?.name]));
  const answer = results.length ? results.map((result) => `${names.get(result.tool_call_id) ?? 'unknown'}=${textOf(result.content)}`).join('; ') : `you said "${withoutDirectives(text)}"`;
  return { text: `Answer: ${answer}`, slowMs };
}
