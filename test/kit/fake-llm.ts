import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Local stand-ins for the four language-model providers, speaking their real wire protocols
 * (OpenAI chat completions with streaming, Anthropic messages, Gemini generateContent, OpenRouter),
 * so that the real AI SDK clients run in tests. What a key contains decides the answer:
 * `invalid` → authentication failure, `ratelimited` → 429, `servererror` → 500, `garbage` → an HTML
 * page with status 200, `slow` → an answer after `slowMs`, `broken` → the connection is cut; any
 * other key works. The chat model `gpt-does-not-exist` is a 404, as OpenAI answers an unknown model.
 */
export interface FakeLlm {
  /** The `*_BASE_URL` settings that point the platform here. */
  env: Record<string, string>;
  /** Every request received: provider, path, key, parsed body. */
  requests: { provider: string; path: string; key: string; body: any }[];
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
    void handle(request, response, requests, options.slowMs ?? 5000).catch(() => response.destroy());
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
  requests.push({ provider, path, key, body });

  if (key.includes('broken')) return void response.destroy();
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
  if (provider === 'anthropic' && path.endsWith('/messages')) {
    return json(response, 200, {
      id: 'msg_fake',
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [{ type: 'text', text: fakeSummary(prompt) }],
      stop_reason: 'end_turn',
      usage: { input_tokens: 10, output_tokens: 20 },
    });
  }
  if (provider === 'gemini' && path.includes(':generateContent')) {
    return json(response, 200, {
      candidates: [{ content: { role: 'model', parts: [{ text: fakeSummary(prompt) }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 20, totalTokenCount: 30 },
    });
  }
  if (path.endsWith('/chat/completions')) return chatCompletion(response, body, fakeSummary(prompt));
  return json(response, 404, { error: { message: `no route ${request.method} ${path}` } });
}

function keyOf(provider: string, request: IncomingMessage): string {
  if (provider === 'anthropic') return String(request.headers['x-api-key'] ?? '');
  // The header only: a key in the query string would end up in logged URLs, so the stand-in refuses it.
  if (provider === 'gemini') return String(request.headers['x-goog-api-key'] ?? '');
  return String(request.headers.authorization ?? '').replace(/^Bearer\s+/i, '');
}

function chatCompletion(response: ServerResponse, body: any, text: string): void {
  const base = { id: 'chatcmpl-fake', created: 1, model: body.model };
  if (!body.stream) {
    return json(response, 200, {
      ...base,
      object: 'chat.completion',
      choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 },
    });
  }
  response.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const words = text.split(/(?<= )/);
  for (const [index, word] of words.entries()) {
    const delta = index === 0 ? { role: 'assistant', content: word } : { content: word };
    response.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: null }] })}\n\n`);
  }
  response.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }], usage: { prompt_tokens: 10, completion_tokens: words.length, total_tokens: 10 + words.length } })}\n\n`);
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
