import pg from 'pg';
import { generateToken } from '../../subgraphs/shared/crypto.js';
import { SecretBox, tokenHash } from '../../subgraphs/shared/secrets.js';
import type { Bootstrapped } from './platform.fixture.js';

/** How many changes the environment's log holds, and how many projects the organization has in all. */
export const HISTORY_LENGTH = 100_000;
export const PROJECT_COUNT = 10_000;
/** One change a second, so that any instant between two changes (JS dates have milliseconds) is unambiguous. */
const CHANGE_EVERY_MS = 1000;

/**
 * The history: change `i` sets setting `i % 4`, stepping through its values in turn; the first
 * change of each starts from its documented default. Settings of four kinds: a string, a boolean,
 * a nullable int and a JSON array.
 */
export const CYCLED = [
  { field: 'timezone', default: 'UTC', values: ['Europe/Paris', 'Asia/Tokyo', 'America/New_York', 'UTC'] },
  { field: 'anonymize_ips', default: false, values: [true, false] },
  { field: 'week_start_day', default: null, values: [1, 0, null] },
  { field: 'app_urls', default: [], values: [['https://app.example.com'], ['https://app.example.com', 'https://www.example.com'], []] },
] as const;

/** Names of the seeded projects (the `n`-th is `<flavour> n`); the search case looks for one flavour. */
const FLAVOURS = ['Web app', 'Mobile app', 'Checkout', 'Marketing site', 'Docs', 'Billing', 'Onboarding', 'Internal tools'];

export interface SeededData {
  /** When the first logged change was made; change `i` was made `i` seconds later. */
  historyStart: Date;
  /** Every project of the organization, the bootstrapped one included, newest (highest id) first. */
  projects: Array<{ id: number; name: string; api_token: string }>;
}

/** The four cycled settings after the first `position` changes of the history. */
export function cycledSettingsAt(position: number): Record<string, unknown> {
  return Object.fromEntries(
    CYCLED.map((setting, index) => {
      const changes = position > index ? Math.floor((position - index - 1) / CYCLED.length) + 1 : 0;
      return [setting.field, changes === 0 ? setting.default : setting.values[(changes - 1) % setting.values.length]];
    }),
  );
}

/**
 * An instant between change `position - 1` and change `position` (before the first for 0): half-way,
 * or `variant` ms (of 1 to CHANGE_EVERY_MS - 1) after the earlier one. Any of them gives one answer.
 */
export function instantAfter(historyStart: Date, position: number, variant?: number): string {
  const offset = variant === undefined ? CHANGE_EVERY_MS / 2 : 1 + (variant % (CHANGE_EVERY_MS - 1));
  return new Date(historyStart.getTime() + (position - 1) * CHANGE_EVERY_MS + offset).toISOString();
}

/**
 * Seeds through SQL, set-based: the environment's history (its current settings are where the
 * history ends) and the other projects of the organization with their first environments and
 * real sealed tokens. Then VACUUM ANALYZE, as autovacuum does soon after a bulk load: the plans and
 * index-only scans are those of a table that has settled with these rows.
 */
export async function seedBulk(databaseUrl: string, account: Bootstrapped, secretKey: string): Promise<SeededData> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    // The history ends an hour ago; the bootstrap's own entries are moved before it, so that the
    // log's order by time is its order by id, as the platform writes it.
    const historyStart = new Date(Math.floor(Date.now() / 1000) * 1000 - (HISTORY_LENGTH * CHANGE_EVERY_MS + 3_600_000));
    await client.query(`update projects.activity_log set created_at = $1::timestamptz - interval '1 hour' where project_id = $2`, [
      historyStart,
      account.project_id,
    ]);
    await insertHistory(client, account, historyStart);
    await indexHistory(client, account.environment_id);
    await client.query(`update projects.environments set settings = settings || $1::jsonb where id = $2`, [
      JSON.stringify(cycledSettingsAt(HISTORY_LENGTH)),
      account.environment_id,
    ]);
    const seeded = await insertProjects(client, account, new SecretBox(secretKey));
    const [bootstrapped] = (await client.query<{ name: string }>(`select name from projects.projects where id = $1`, [account.project_id])).rows;
    await client.query('vacuum analyze');
    const projects = [...seeded, { id: account.project_id, name: bootstrapped!.name, api_token: account.project_api_key }].sort((a, b) => b.id - a.id);
    return { historyStart, projects };
  } finally {
    await client.end();
  }
}

async function insertHistory(client: pg.Client, account: Bootstrapped, historyStart: Date): Promise<void> {
  await client.query(
    `insert into projects.activity_log (organization_id, project_id, environment_id, scope, activity, user_id, item_name, changes, created_at)
     select $1, $2, $3, 'Team', 'updated',
            (select user_id from projects.memberships where organization_id = $1 limit 1),
            (select name from projects.environments where id = $3),
            jsonb_build_array(jsonb_build_object(
              'type', 'Team', 'action', 'changed', 'field', s.setting->>'field',
              'before', case when s.n = 0 then s.setting->'default' else s.setting->'values'->((s.n - 1) % s.size) end,
              'after', s.setting->'values'->(s.n % s.size))),
            $4::timestamptz + i * $5 * interval '1 millisecond'
       from generate_series(0, $6 - 1) as i
       cross join lateral (
         select $7::jsonb->(i % jsonb_array_length($7::jsonb)) as setting,
                i / jsonb_array_length($7::jsonb) as n,
                jsonb_array_length($7::jsonb->(i % jsonb_array_length($7::jsonb))->'values') as size
       ) as s
      order by i`,
    [account.organization_id, account.project_id, account.environment_id, historyStart, CHANGE_EVERY_MS, HISTORY_LENGTH, JSON.stringify(CYCLED)],
  );
}

/**
 * The per-field rows the platform writes with each log entry (projects.setting_changes), made
 * again from the environment's whole log, since the seed wrote the log and moved entries directly.
 */
async function indexHistory(client: pg.Client, environmentId: number): Promise<void> {
  await client.query('delete from projects.setting_changes where environment_id = $1', [environmentId]);
  await client.query(
    `insert into projects.setting_changes (log_id, position, environment_id, field, action, before, created_at)
     select l.id, c.position - 1, l.environment_id, c.change->>'field', c.change->>'action', c.change->'before', l.created_at
       from projects.activity_log l, jsonb_array_elements(l.changes) with ordinality as c(change, position)
      where l.environment_id = $1 and c.change->>'field' is not null`,
    [environmentId],
  );
}

/** PROJECT_COUNT - 1 projects, each with its first environment under the same id, in one statement. */
async function insertProjects(client: pg.Client, account: Bootstrapped, box: SecretBox): Promise<SeededData['projects']> {
  const names = Array.from({ length: PROJECT_COUNT - 1 }, (_, index) => `${FLAVOURS[index % FLAVOURS.length]} ${index + 1}`);
  const tokens = names.map(() => generateToken('phc_', 32));
  const { rows } = await client.query<{ id: number; ord: string }>(
    `with input as materialized (
       select nextval('projects.environments_id_seq')::int as id, t.ord, t.name, t.token_hash, t.token_sealed
         from unnest($1::text[], $2::text[], $3::text[]) with ordinality as t(name, token_hash, token_sealed, ord)
        order by t.ord
     ), new_projects as (
       insert into projects.projects (id, uuid, organization_id, name, created_at, updated_at)
       select id, gen_random_uuid(), $4, name, now(), now() from input
     ), new_environments as (
       insert into projects.environments (id, uuid, project_id, name, settings, api_token_hash, api_token_sealed, created_at, updated_at)
       select id, gen_random_uuid(), id, 'Default environment', '{}', token_hash, token_sealed, now(), now() from input
     )
     select id, ord from input`,
    [names, tokens.map(tokenHash), tokens.map((token) => box.seal(token)), account.organization_id],
  );
  return rows.map(({ id, ord }) => ({ id, name: names[Number(ord) - 1]!, api_token: tokens[Number(ord) - 1]! }));
}
