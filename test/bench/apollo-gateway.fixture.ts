import { resolve } from 'node:path';
import { BenchChild, logRecord } from './child.process.js';

export interface RunningApolloGateway {
  child: BenchChild;
  graphqlUrl: string;
}

/** Starts apollo-gateway.server.js in its own process over the given subgraphs. */
export async function startApolloGateway(
  root: string,
  settings: { secretKey: string; subgraphUrls: Record<string, string> },
): Promise<RunningApolloGateway> {
  const child = BenchChild.start('the Apollo gateway', resolve(root, 'dist/test/bench/apollo-gateway.server.js'), [], {
    cwd: root,
    env: { ...process.env, SECRET_KEY: settings.secretKey, BENCH_SUBGRAPH_URLS: JSON.stringify(settings.subgraphUrls) },
  });
  try {
    const graphqlUrl = await child.waitFor((line) => {
      const url = logRecord(line)?.url;
      return typeof url === 'string' ? url : undefined;
    });
    return { child, graphqlUrl };
  } catch (error) {
    await child.stop();
    throw error;
  }
}
