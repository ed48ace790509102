import { defineSubgraph } from '../shared/subgraph/define.js';
import { deleteEnvironmentData } from './environment-data.deletion.js';
import { EndpointVersion } from './endpoints/endpoint-version.entity.js';
import { Endpoint } from './endpoints/endpoint.entity.js';
import { UserStub } from './endpoints/user.stub.js';
import { EndpointResolver } from './endpoints/endpoint.resolver.js';
import { startMaterializationWorker } from './materialization/materialization.worker.js';
import { migrations } from './migrations/index.js';
import { CachedResult } from './runs/cached-result.entity.js';
import { EndpointRun } from './runs/endpoint-run.entity.js';
import { RunResolver } from './runs/run.resolver.js';

export const endpoints = defineSubgraph({
  name: 'endpoints',
  entities: [Endpoint, EndpointVersion, EndpointRun, CachedResult],
  migrations,
  // The kept rows of materialized versions: written with plain SQL (see materialized-rows.repository.ts).
  unmanagedTables: [/^materialized_rows$/],
  resolvers: [EndpointResolver, RunResolver],
  orphanedTypes: [UserStub],
  deleteEnvironmentData,
  startWorker: startMaterializationWorker,
});
