import { defineSubgraph } from '../shared/subgraph/define.js';
import { batchedReference } from '../shared/subgraph/references.js';
import { ActivityLog } from './activity/activity-log.entity.js';
import { SettingChange } from './activity/setting-change.entity.js';
import { UserStub } from './activity/user.stub.js';
import { GroupType } from './group-types/group-type.entity.js';
import { ProductIntent } from './intents/product-intent.entity.js';
import { DeletionJob } from './deletion/deletion-job.entity.js';
import { EvaluationTag } from './evaluation-tags/evaluation-tag.entity.js';
import { EvaluationTagResolver } from './evaluation-tags/evaluation-tag.resolver.js';
import { IngestionRestriction } from './ingestion-restrictions/ingestion-restriction.entity.js';
import { IngestionRestrictionResolver } from './ingestion-restrictions/ingestion-restriction.resolver.js';
import { Environment } from './environments/environment.entity.js';
import { EnvironmentResolver } from './environments/environment.resolver.js';
import { EnvironmentService } from './environments/environment.service.js';
import { Membership } from './memberships/membership.entity.js';
import { MembershipResolver } from './memberships/membership.resolver.js';
import { OrganizationMemberResolver } from './memberships/organization-member.resolver.js';
import { migrations } from './migrations/index.js';
import { Organization } from './organizations/organization.entity.js';
import { OrganizationResolver } from './organizations/organization.resolver.js';
import { OrganizationService } from './organizations/organization.service.js';
import { Project } from './projects/project.entity.js';
import { ProjectResolver } from './projects/project.resolver.js';
import { ProjectService } from './projects/project.service.js';
import { UserAccountExtension } from './users/user-account.extension.js';
import { UserAccountResolver } from './users/user-account.resolver.js';

export const projects = defineSubgraph({
  name: 'projects',
  entities: [Organization, Membership, Project, Environment, ActivityLog, SettingChange, ProductIntent, GroupType, EvaluationTag, IngestionRestriction, DeletionJob],
  migrations,
  resolvers: [OrganizationResolver, ProjectResolver, EnvironmentResolver, EvaluationTagResolver, IngestionRestrictionResolver, MembershipResolver, OrganizationMemberResolver, UserAccountResolver],
  orphanedTypes: [UserStub, UserAccountExtension],
  references: {
    // The accounts subgraph sends the ids the fields here need (`@requires`): nothing to load.
    UserAccount: (reference) => reference,
    Organization: batchedReference(
      (reference) => String(reference.id),
      (ids, { actor, em }) => new OrganizationService(em).findMany(actor, ids),
    ),
    Project: batchedReference(
      (reference) => Number(reference.id),
      (ids, { actor, em }, fields) => new ProjectService(em).findMany(actor, ids, fields),
    ),
    Environment: batchedReference(
      (reference) => Number(reference.id),
      (ids, { actor, em }) => new EnvironmentService(em).findMany(actor, ids),
    ),
  },
});
