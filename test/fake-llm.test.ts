import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText } from 'ai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeLlm, type FakeLlm } from './kit/fake-llm.js';

let llm: FakeLlm;

beforeAll(async () => {
  llm = await startFakeLlm({ slowMs: 2000 });
});
afterAll(() => llm?.close());

/** The stand-in must speak the wire protocol the real client library expects, streaming included. */
describe('the OpenAI stand-in of the test kit', () => {
  const model = (apiKey: string) => createOpenAI({ apiKey, baseURL: llm.env.OPENAI_BASE_URL }).chat('gpt-4.1-mini');

  it('streams a chat completion that the AI SDK reads chunk by chunk', async () => {
    const result = streamText({ model: model('sk-valid-stream'), prompt: 'L1: a\nL2: b' });
    const chunks: string[] = [];
    for await (const chunk of result.textStream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(3);
    const whole = await generateText({ model: model('sk-valid-stream'), prompt: 'L1: a\nL2: b' });
    expect(chunks.join('')).toBe(whole.text);
    expect((await result.usage).outputTokens).toBeGreaterThan(0);
  });

  it('refuses bad keys and rate-limits as the provider does', async () => {
    await expect(generateText({ model: model('sk-invalid'), prompt: 'x', maxRetries: 0 })).rejects.toMatchObject({ statusCode: 401 });
    await expect(generateText({ model: model('sk-ratelimited'), prompt: 'x', maxRetries: 0 })).rejects.toMatchObject({ statusCode: 429 });
    await expect(generateText({ model: model('sk-slow'), prompt: 'x', maxRetries: 0, abortSignal: AbortSignal.timeout(200) })).rejects.toThrow();
  });
});
