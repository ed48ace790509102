import { accounts } from './accounts/index.js';
import { batchExports } from './batch-exports/index.js';
import { conversations } from './conversations/index.js';
import { customerProfiles } from './customer-profiles/index.js';
import { endpoints } from './endpoints/index.js';
import { ingestion } from './ingestion/index.js';
import { llmAnalytics } from './llm-analytics/index.js';
import { projects } from './projects/index.js';
import type { SubgraphDefinition } from './shared/subgraph/define.js';

/** Every subgraph of the platform, in the order they start. */
export const subgraphs: SubgraphDefinition[] = [accounts, projects, customerProfiles, llmAnalytics, ingestion, conversations, endpoints, batchExports];

export function subgraphNamed(name: string): SubgraphDefinition {
  const found = subgraphs.find((subgraph) => subgraph.name === name);
  if (!found) throw new Error(`no subgraph named ${name}`);
  return found;
}

