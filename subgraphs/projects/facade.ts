import type { EntityManager } from '@mikro-orm/postgresql';
import { placeOwner, type OwnerPlacement, type OwnerPlacementInput } from './bootstrap/bootstrap.service.js';
import type { MemberUser } from './memberships/membership.service.js';
import type { Actor, EnvironmentPlacement } from '../shared/auth/actor.js';
import type { SecretBox } from '../shared/secrets.js';
import { DeletionService, type EnvironmentDataCleanup } from './deletion/deletion.service.js';
import { placeEnvironments, reachEnvironment } from './environments/environment-placement.js';
import { projectCacheOf } from './projects/project.cache.js';
import type { PubSub } from '../shared/pubsub/pubsub.js';
import { opensSealedSecrets } from './environments/sealed-secrets.js';
import { groupTypeIndexes, type GroupTypeIndexes } from './group-types/group-type-indexes.js';
import { findIngestionTarget, holdLiveProject, markIngested, type IngestionRestrictionRule, type IngestionTarget } from './ingestion/ingestion-target.js';
import { environmentOverview, type EnvironmentOverview } from './settings/environment-overview.js';
import { UserPlacementService, type CurrentPlacement, type ResolvedPlacement } from './users/user-placement.service.js';

export type { OwnerPlacement, OwnerPlacementInput, CurrentPlacement, ResolvedPlacement, EnvironmentOverview, GroupTypeIndexes, IngestionRestrictionRule, IngestionTarget };

/** What other subgraphs and the platform start-up may ask of projects: plain objects in and out. */
export const projectsFacade = {
  /**
   * Lets the projects' placements and names be cached for an ORM's EntityManagers (those of any
   * subgraph, whose services reach environments through this facade): only while their changes,
   * announced on the pub/sub, are heard. Each process does it for every subgraph it serves.
   */
  followProjectChanges: (em: EntityManager, pubsub: PubSub): Promise<void> => projectCacheOf(em.getDriver()).follow(pubsub),

  /** Whether SECRET_KEY opens the secrets the database holds (true where it holds none yet). */
  opensSealedSecrets: (em: EntityManager, box: SecretBox): Promise<boolean> => opensSealedSecrets(em, box),

  /**
   * The environment's project and organization if the actor may reach it (404 when it does not
   * exist or is being deleted, 403 when it is another organization's). Any subgraph's
   * EntityManager will do: it reads the projects schema through that connection.
   */
  reachEnvironment: (em: EntityManager, actor: Actor, id: number): Promise<EnvironmentPlacement> => reachEnvironment(em, actor, id),

  /**
   * Where an environment lives, whoever asks (undefined when it does not exist or is being
   * deleted): for the platform's own internal callers, which belong to no organization.
   */
  placeEnvironment: async (em: EntityManager, id: number): Promise<EnvironmentPlacement | undefined> => (await placeEnvironments(em, [id])).get(id),

  /** An environment's names and every setting (stored or default); null when it does not exist or is being deleted. */
  environmentOverview: (em: EntityManager, environmentId: number): Promise<EnvironmentOverview | null> => environmentOverview(em, environmentId),

  /** The live environment a project API token sends events to, with its ingestion restrictions; null for none. */
  findIngestionTarget: (em: EntityManager, token: string): Promise<IngestionTarget | null> => findIngestionTarget(em, token),

  /** Holds a live project for the caller's transaction (its deletion waits); false when it is deleted. */
  holdLiveProject: (em: EntityManager, projectId: number): Promise<boolean> => holdLiveProject(em, projectId),

  /** Sets an environment's `ingested_event`. */
  markIngested: (em: EntityManager, environmentId: number): Promise<void> => markIngested(em, environmentId),

  /** Indexes of a project's group types, new names mapped to free ones (at most five), in the caller's transaction. */
  groupTypeIndexes: (em: EntityManager, projectId: number, names: string[]): Promise<GroupTypeIndexes> => groupTypeIndexes(em, projectId, names),

  /** A user's new current organization (one they belong to, else 400) and its first environment. */
  chooseCurrentOrganization: (em: EntityManager, userId: number, organizationId: string): Promise<CurrentPlacement> =>
    new UserPlacementService(em).chooseOrganization(userId, organizationId),

  /** A user's current organization, project and environment, as their account shows them (fallbacks applied). */
  currentPlacement: (em: EntityManager, userId: number, stored: CurrentPlacement): Promise<ResolvedPlacement> => new UserPlacementService(em).current(userId, stored),

  /** A user's new current environment (in one of their organizations, else 400) and its organization. */
  chooseCurrentTeam: (em: EntityManager, userId: number, teamId: string): Promise<CurrentPlacement> =>
    new UserPlacementService(em).chooseTeam(userId, teamId),

  /** Runs the oldest pending project deletion, if any; `cleanup` drops other subgraphs' data. */
  runNextDeletion: (em: EntityManager, cleanup: EnvironmentDataCleanup): Promise<boolean> => new DeletionService(em).runNext(cleanup),

  /** An organization the user owns and a project in it, made or reused by name (the bootstrap's part here). */
  placeOwner: (em: EntityManager, user: MemberUser, input: OwnerPlacementInput): Promise<OwnerPlacement> => placeOwner(em, user, input),
};
