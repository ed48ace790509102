import type { RestRoute } from '../route-table.js';
import { batchExportRoutes } from './batch-exports.routes.js';
import { conversationHiddenFields, conversationRoutes } from './conversations.routes.js';
import { customerProfileConfigHiddenFields, customerProfileConfigRoutes } from './customer-profile-configs.routes.js';
import { endpointRoutes } from './endpoints.routes.js';
import { ingestionHiddenFields, ingestionRoutes } from './ingestion.routes.js';
import { llmAnalyticsRoutes } from './llm-analytics.routes.js';
import { organizationMemberRoutes } from './organization-members.routes.js';
import { personalApiKeyRoutes } from './personal-api-keys.routes.js';
import { environmentRoutes, projectRoutes } from './projects.routes.js';
import { userRoutes } from './users.routes.js';

/** Every REST route, one table per API area. */
export const routes: RestRoute[] = [
  ...personalApiKeyRoutes,
  ...userRoutes,
  ...organizationMemberRoutes,
  ...projectRoutes,
  ...environmentRoutes,
  ...customerProfileConfigRoutes,
  ...llmAnalyticsRoutes,
  ...ingestionRoutes,
  ...conversationRoutes,
  ...endpointRoutes,
  ...batchExportRoutes,
];

/** Fields that REST records leave out, so that they keep PostHog's shape. */
export const hiddenFields: string[] = [...customerProfileConfigHiddenFields, ...ingestionHiddenFields, ...conversationHiddenFields];
