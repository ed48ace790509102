import type { ExecutionRequest, ExecutionResult, Executor } from '@graphql-tools/utils';
import { buildSchema, parse, type GraphQLFormattedError } from 'graphql';
import { describe, expect, it } from 'vitest';
import type { Actor } from '../subgraphs/shared/auth/actor.js';
import type { SubgraphContext } from '../subgraphs/shared/subgraph/context.js';
import { localSubgraph } from '../subgraphs/shared/subgraph/local.js';
import { localFirstTransport } from './local.transport.js';

/** A subgraph whose one field counts its runs and answers once released: calls overlap for as long as a test wants. */
function countingSubgraph() {
  const schema = buildSchema('type Query { echo(n: Int): String }');
  let runs = 0;
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  schema.getQueryType()!.getFields().echo!.resolve = async (_root, { n }: { n?: number }) => {
    runs += 1;
    await released;
    return `echo ${n ?? '-'}`;
  };
  const actor = { kind: 'user' } as unknown as Actor;
  const local = localSubgraph({ schema, contextFor: () => ({ actor }) as unknown as SubgraphContext, formatError: (error: GraphQLFormattedError) => error });
  const transport = localFirstTransport({ echo: local }, async () => actor);
  const executor = transport.getSubgraphExecutor({ subgraphName: 'echo' } as never) as Executor;
  return { executor, release, runs: () => runs };
}

const document = parse('query($n: Int) { echo(n: $n) }');
const call = (executor: Executor, actorHeader: string, variables: Record<string, unknown>, doc = document) =>
  executor({ document: doc, variables, operationType: 'query', context: { actorHeader } } as ExecutionRequest) as Promise<ExecutionResult>;

describe(localFirstTransport.name, () => {
  it('runs a query asked again by the same caller while it runs once, and gives each caller its own copy', async () => {
    const { executor, release, runs } = countingSubgraph();
    const answers = [call(executor, 'alice', { n: 1 }), call(executor, 'alice', { n: 1 }), call(executor, 'alice', { n: 1 })];
    await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    const [first, second, third] = await Promise.all(answers);
    expect(runs()).toBe(1);
    expect(first).toEqual({ data: { echo: 'echo 1' } });
    expect(second).toEqual(first);
    expect(second).not.toBe(first);
    expect(third).not.toBe(second);
  });

  it('never shares between callers, variables or documents, nor once the first has answered', async () => {
    const { executor, release, runs } = countingSubgraph();
    const same = parse('query($n: Int) { echo(n: $n) }');
    const answers = [call(executor, 'alice', { n: 1 }), call(executor, 'bob', { n: 1 }), call(executor, 'alice', { n: 2 }), call(executor, 'alice', { n: 1 }, same)];
    await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    expect((await Promise.all(answers)).map((answer) => answer.data?.echo)).toEqual(['echo 1', 'echo 1', 'echo 2', 'echo 1']);
    expect(runs()).toBe(4);
    await call(executor, 'alice', { n: 1 });
    expect(runs()).toBe(5);
  });

  it('hands the subgraph a key named __proto__ as a key, and never as the prototype of what it copied', async () => {
    const schema = buildSchema('scalar JSON type Query { keys(value: JSON): JSON }');
    schema.getQueryType()!.getFields().keys!.resolve = (_root, { value }: { value: Record<string, unknown> }) => ({
      own: Object.keys(value),
      plain: Object.getPrototypeOf(value) === Object.prototype,
      inherited: (value as { planted?: unknown }).planted ?? null,
    });
    const actor = { kind: 'user' } as unknown as Actor;
    const local = localSubgraph({ schema, contextFor: () => ({ actor }) as unknown as SubgraphContext, formatError: (error: GraphQLFormattedError) => error });
    const executor = localFirstTransport({ json: local }, async () => actor).getSubgraphExecutor({ subgraphName: 'json' } as never) as Executor;
    const asked = parse('query($value: JSON) { keys(value: $value) }');
    for (const text of ['{"__proto__": true, "kept": 1}', '{"__proto__": {"planted": "yes"}, "kept": 1}']) {
      const answer = await call(executor, 'alice', { value: JSON.parse(text) }, asked);
      expect(answer.data?.keys).toEqual({ own: ['__proto__', 'kept'], plain: true, inherited: null });
    }
  });
});
