import { defineSubgraph } from '../shared/subgraph/define.js';
import { deleteEnvironmentData } from './environment-data.deletion.js';
import { migrations } from './migrations/index.js';
import { ActiveProviderKey } from './provider-keys/active-provider-key.entity.js';
import { ProviderKey } from './provider-keys/provider-key.entity.js';
import { UserStub } from './provider-keys/user.stub.js';
import { ProviderKeyResolver } from './provider-keys/provider-key.resolver.js';
import { SummaryCacheEntry } from './summarization/summary-cache.entity.js';
import { startSummaryCachePurge } from './summarization/summary-cache.worker.js';
import { SummarizationResolver } from './summarization/summarization.resolver.js';
import { TextReprResolver } from './text-repr/text-repr.resolver.js';

export const llmAnalytics = defineSubgraph({
  name: 'llm-analytics',
  entities: [ProviderKey, ActiveProviderKey, SummaryCacheEntry],
  migrations,
  resolvers: [ProviderKeyResolver, SummarizationResolver, TextReprResolver],
  orphanedTypes: [UserStub],
  deleteEnvironmentData,
  startWorker: startSummaryCachePurge,
});
