import { defineSubgraph } from '../shared/subgraph/define.js';
import { CustomerProfileConfig } from './configs/customer-profile-config.entity.js';
import { CustomerProfileConfigResolver } from './configs/customer-profile-config.resolver.js';
import { ProjectStub } from './configs/project.stub.js';
import { deleteEnvironmentData } from './environment-data.deletion.js';
import { migrations } from './migrations/index.js';

export const customerProfiles = defineSubgraph({
  name: 'customer-profiles',
  entities: [CustomerProfileConfig],
  migrations,
  resolvers: [CustomerProfileConfigResolver],
  orphanedTypes: [ProjectStub],
  deleteEnvironmentData,
});
