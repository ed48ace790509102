import { createOpenAI } from '@ai-sdk/openai';
import { generateText, stepCountIs, streamText, tool } from 'ai';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
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

/** The script a conversation test writes in its user message drives a real multi-step tool run. */
describe('the scripted assistant of the OpenAI stand-in', () => {
  let fake: FakeLlm; // its own instance, so that the aborts counted are this block's only
  beforeAll(async () => {
    fake = await startFakeLlm();
  });
  afterAll(() => fake?.close());
  const model = () => createOpenAI({ apiKey: 'k', baseURL: fake.env.OPENAI_BASE_URL }).chat('gpt-4.1-mini');
  const calls: unknown[] = [];
  const tools = {
    count_events: tool({
      description: 'Counts the events of a kind',
      inputSchema: z.object({ event: z.string() }),
      execute: async (input) => (calls.push(input), '42'),
    }),
    list_dashboards: tool({
      description: 'Lists the dashboards',
      inputSchema: z.object({}),
      execute: async () => ({ names: ['Growth'] }),
    }),
  };

  it('calls the tool a directive names, then answers with its result', async () => {
    calls.length = 0;
    const result = streamText({ model: model(), tools, stopWhen: stepCountIs(5), system: 'You are an analyst.', prompt: 'How many signups? [tool:count_events {"event":"sign}up"}]' });
    expect(await result.text).toBe('Answer: count_events=42');
    expect(calls).toEqual([{ event: 'sign}up' }]);
    expect((await result.steps).map((step) => step.finishReason)).toEqual(['tool-calls', 'stop']);
    const last = fake.requests.at(-1)!.body;
    expect(last.messages[0]).toEqual({ role: 'system', content: 'You are an analyst.' });
    expect(last.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'call_1', content: '42' });
  });

  it('answers two directives with two tool calls in turn, streaming or not', async () => {
    const prompt = 'Both please [tool:count_events {"event":"login"}] [tool:list_dashboards {}]';
    const expected = 'Answer: count_events=42; list_dashboards={"names":["Growth"]}';
    const streamed = streamText({ model: model(), tools, stopWhen: stepCountIs(5), prompt });
    expect(await streamed.text).toBe(expected);
    expect((await streamed.steps).flatMap((step) => step.toolCalls.map((call) => call.toolName))).toEqual(['count_events', 'list_dashboards']);
    const whole = await generateText({ model: model(), tools, stopWhen: stepCountIs(5), prompt });
    expect(whole.text).toBe(expected);
    expect(whole.steps).toHaveLength(3);
  });

  it('echoes the message, writes N words, refuses unknown tools, and titles without tools', async () => {
    const ask = async (prompt: string, withTools = true) => (await generateText({ model: model(), prompt, ...(withTools ? { tools, stopWhen: stepCountIs(5) } : {}) })).text;
    expect(await ask('  hello there  ')).toBe('Answer: you said "hello there"');
    expect(await ask('long [words:5] please')).toBe('Answer: w1 w2 w3 w4 w5');
    expect(await ask('[tool:drop_table {}]')).toBe('Unknown tool drop_table.');
    expect(await ask('Write a short title for: how many users signed up last week [words:3]', false)).toBe('Title: Write a short title for:');
    const streamed = streamText({ model: model(), tools, prompt: '[words:3]' });
    const chunks: string[] = [];
    for await (const chunk of streamed.textStream) chunks.push(chunk);
    expect(chunks).toEqual(['Answer: ', 'w1 ', 'w2 ', 'w3']);
  });

  it('records a client that cancels mid-stream', async () => {
    const before = fake.requests.length;
    const controller = new AbortController();
    const result = streamText({ model: model(), tools, prompt: 'Go on [slow:200] [words:20]', abortSignal: controller.signal });
    await fake.waitForRequests(before + 1);
    try {
      for await (const chunk of result.textStream) {
        expect(chunk).toBe('Answer: ');
        controller.abort();
      }
    } catch {
      // the abort may surface as an error; what matters is the server seeing it
    }
    await vi.waitFor(() => expect(fake.aborted()).toBe(1), { timeout: 1000 });
    expect(fake.requests.at(-1)!.aborted).toBe(true);
  });

  it('fails with a 500 on [fail]', async () => {
    const errors: unknown[] = [];
    const result = streamText({ model: model(), tools, prompt: 'Break [fail]', maxRetries: 0, onError: ({ error }) => void errors.push(error) });
    const parts: string[] = [];
    for await (const part of result.fullStream) parts.push(part.type);
    expect(parts).toContain('error');
    expect(errors).toMatchObject([{ statusCode: 500 }]);
  });
});
