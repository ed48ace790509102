import { defineSubgraph } from '../shared/subgraph/define.js';
import { deleteEnvironmentData } from './environment-data.deletion.js';
import { BatchExportBackfill } from './backfills/batch-export-backfill.entity.js';
import { BackfillResolver } from './backfills/backfill.resolver.js';
import { BatchExport } from './exports/batch-export.entity.js';
import { BatchExportResolver } from './exports/batch-export.resolver.js';
import { migrations } from './migrations/index.js';
import { BatchExportRun } from './runs/batch-export-run.entity.js';
import { RunResolver } from './runs/run.resolver.js';
import { startBatchExportWorker } from './schedule/schedule.worker.js';
import { TestStepResolver } from './test-steps/test-step.resolver.js';

export const batchExports = defineSubgraph({
  name: 'batch-exports',
  entities: [BatchExport, BatchExportRun, BatchExportBackfill],
  migrations,
  resolvers: [BatchExportResolver, RunResolver, BackfillResolver, TestStepResolver],
  deleteEnvironmentData,
  startWorker: startBatchExportWorker,
});
