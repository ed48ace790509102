import { defineSubgraph } from '../shared/subgraph/define.js';
import { IngestBatchResolver } from './capture/ingest-batch.resolver.js';
import { clickhouseMigrations } from './clickhouse/clickhouse.migrations.js';
import { deleteEnvironmentData } from './environment-data.deletion.js';
import { EventResolver } from './events/event.resolver.js';
import { Group } from './groups/group.entity.js';
import { GroupResolver } from './groups/group.resolver.js';
import { migrations } from './migrations/index.js';
import { PersonDistinctId } from './persons/person-distinct-id.entity.js';
import { Person } from './persons/person.entity.js';
import { PersonResolver } from './persons/person.resolver.js';
import { ProfileUpdates } from './profiles/profile-updates.entity.js';
import { startProfileWorker } from './profiles/profile.worker.js';

export const ingestion = defineSubgraph({
  name: 'ingestion',
  entities: [Person, PersonDistinctId, Group, ProfileUpdates],
  migrations,
  clickhouseMigrations,
  // Events are partitioned by month and written set-based: their tables are the migrations' own.
  unmanagedTables: [/^events($|_)/, /^event_ids$/, /^hogql_/],
  resolvers: [IngestBatchResolver, EventResolver, PersonResolver, GroupResolver],
  deleteEnvironmentData,
  startWorker: startProfileWorker,
});
