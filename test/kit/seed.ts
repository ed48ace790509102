import { randomBytes } from 'node:crypto';
import { MikroORM } from '@mikro-orm/postgresql';
import { subgraphNamed } from '../../subgraphs/index.js';
import { migrate } from '../../subgraphs/shared/db/migrate.js';
import { ormOptions } from '../../subgraphs/shared/db/orm.js';
import { createLogger } from '../../subgraphs/shared/logger.js';
import { hashPassword } from '../../subgraphs/accounts/users/password.js';
import { User } from '../../subgraphs/accounts/users/user.entity.js';
import { bootstrapUser, type BootstrapResult } from '../../router/process/bootstrap.js';
import { MembershipService } from '../../subgraphs/projects/memberships/membership.service.js';
import { api } from './http.js';

const SILENT = createLogger('silent');

/** The password of every user {@link seedTenant} makes. */
export const SEED_PASSWORD = 'correct horse battery staple';

/**
 * Its scrypt hash at the production cost, derived once per test process and stored for every
 * seeded user: a hash takes about a CPU second on purpose, and the suites seed hundreds of tenants.
 * Seeded users of one process share a salt; every login and password change derives its own.
 */
let seedPasswordHash: Promise<string> | undefined;
/** Databases whose accounts and projects schemas this process has seen migrated: once is enough. */
const migrated = new Set<string>();

export interface Tenant extends BootstrapResult {
  email: string;
}

/**
 * A new user with an organization, a project and a `*` key, made by the same parts as
 * `npm run bootstrap` (the user's password is {@link SEED_PASSWORD}). Every test seeds its own
 * tenants, so suites never share data.
 */
export async function seedTenant(databaseUrl: string, label = 'tenant'): Promise<Tenant> {
  const email = `${label}-${randomBytes(5).toString('hex')}@example.test`.toLowerCase();
  const [accounts, projects] = await Promise.all([
    MikroORM.init(ormOptions(subgraphNamed('accounts'), databaseUrl, 1)),
    MikroORM.init(ormOptions(subgraphNamed('projects'), databaseUrl, 1)),
  ]);
  try {
    // The run's database is migrated by the first stack a suite starts; a suite that seeds before
    // starting one (or starts none) would otherwise find no tables, depending on the suites' order.
    if (!migrated.has(databaseUrl)) {
      await Promise.all([migrate(subgraphNamed('accounts'), accounts, SILENT), migrate(subgraphNamed('projects'), projects, SILENT)]);
      migrated.add(databaseUrl);
    }
    // The bootstrap (router/process/bootstrap.ts) of a user made here, with the shared hash.
    const user = Object.assign(new User(), { email, password_hash: await (seedPasswordHash ??= hashPassword(SEED_PASSWORD)) });
    await accounts.em.fork().persistAndFlush(user);
    const result = await bootstrapUser({ accounts: accounts.em.fork(), projects: projects.em.fork() }, user, {
      organization: `${label} organization ${randomBytes(3).toString('hex')}`,
    });
    return { ...result, email };
  } finally {
    await Promise.all([accounts.close(), projects.close()]);
  }
}

/** A personal API key with exactly these scopes, created through the REST API by a `*` key. */
export async function createKey(baseUrl: string, adminKey: string, scopes: string[]): Promise<string> {
  const response = await api(baseUrl, 'POST', '/api/personal_api_keys/', { key: adminKey, body: { label: 'test key', scopes } });
  if (response.status !== 201) throw new Error(`key creation failed: ${response.status} ${response.text}`);
  return response.body.value as string;
}

/** Makes the user behind `memberKey` a member of an organization at `level` (1, 8 or 15). */
export async function addMember(databaseUrl: string, baseUrl: string, memberKey: string, organizationId: string, level: number): Promise<void> {
  const me = await fetch(`${baseUrl}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${memberKey}` },
    body: JSON.stringify({ query: '{ me { id uuid } }' }),
  }).then((response) => response.json() as Promise<{ data: { me: { id: number; uuid: string } } }>);
  const projects = await MikroORM.init(ormOptions(subgraphNamed('projects'), databaseUrl, 1));
  try {
    await new MembershipService(projects.em.fork()).add(organizationId, me.data.me, level);
  } finally {
    await projects.close();
  }
  // The router trusts a resolved key for up to a second: let it see the new membership.
  await new Promise((resolve) => setTimeout(resolve, 1100));
}
