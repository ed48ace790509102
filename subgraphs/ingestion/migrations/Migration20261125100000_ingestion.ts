import { Migration } from '@mikro-orm/migrations';
import { QUERY_SURFACE } from '../query-surface.js';

// Fixed here as they were when this migration was written; the names live on in query-surface.ts.
const HOGQL_READER_ROLE = QUERY_SURFACE.readerRole;
const HOGQL_TEAM_SETTING = QUERY_SURFACE.teamSetting;

// Empty once a transaction that set it has ended, NULL before: both mean "no team" (no row).
const team = `nullif(current_setting('${HOGQL_TEAM_SETTING}', true), '')::int`;

const TABLES = ['events', 'persons', 'person_distinct_ids', 'groups'];

/**
 * Written by hand: the read surface of HogQL queries. Views with PostHog's table and column names
 * filter by the team of the transaction; they run with the caller's rights (security_invoker), so
 * that the row-level security below applies beneath them: a query that ever escaped the compiler's
 * allow-list would still run as a role that reads one team's rows of these four tables and nothing
 * else. The platform's own role owns the tables and is not subject to the policies.
 */
export class Migration20261125100000_ingestion extends Migration {
  override async up(): Promise<void> {
    // Roles belong to the cluster: another database of it may have made this one already (at the same moment, in tests).
    // Without the right to make roles the views still filter by team, and queries run as the platform's role (logged at start).
    this.addSql(`do $$ begin
      create role "${HOGQL_READER_ROLE}" nologin;
    exception
      when duplicate_object or unique_violation then null;
      when insufficient_privilege then raise notice 'cannot create role ${HOGQL_READER_ROLE}: HogQL queries will run as the platform role';
    end $$;`);
    this.addSql(`do $$ begin
      if exists (select 1 from pg_roles where rolname = '${HOGQL_READER_ROLE}') then
        execute 'grant "${HOGQL_READER_ROLE}" to ' || quote_ident(current_user);
        execute 'grant usage on schema "ingestion" to "${HOGQL_READER_ROLE}"';
        execute 'grant select on ${TABLES.map((name) => `"ingestion"."${name}"`).join(', ')} to "${HOGQL_READER_ROLE}"';
      end if;
    exception when insufficient_privilege then raise notice 'cannot grant ${HOGQL_READER_ROLE}: HogQL queries will run as the platform role';
    end $$;`);
    // A role that SELECT may still call set_config() with could take back the platform's role
    // (set_config('role', …)) or name another team: only the platform's role keeps it here.
    this.addSql(`do $$ begin
      execute 'grant execute on function pg_catalog.set_config(text, text, boolean) to ' || quote_ident(current_user);
      revoke execute on function pg_catalog.set_config(text, text, boolean) from public;
    exception when insufficient_privilege then raise notice 'cannot revoke set_config from public: start-up will warn';
    end $$;`);
    for (const name of TABLES) {
      this.addSql(`alter table "ingestion"."${name}" enable row level security;`);
      this.addSql(`do $$ begin
        if exists (select 1 from pg_roles where rolname = '${HOGQL_READER_ROLE}') then
          execute 'create policy "hogql_team" on "ingestion"."${name}" for select to "${HOGQL_READER_ROLE}" using (environment_id = ${team.replace(/'/g, "''")})';
        end if;
      end $$;`);
    }

    this.addSql(`create view "ingestion"."hogql_events" with (security_invoker = true) as
      select e.uuid, e.event, e.distinct_id, e.timestamp, e.properties, e.created_at
      from "ingestion"."events" e where e.environment_id = ${team};`);
    this.addSql(`create view "ingestion"."hogql_persons" with (security_invoker = true) as
      select p.uuid as id, p.created_at, p.properties, p.is_identified
      from "ingestion"."persons" p where p.environment_id = ${team};`);
    this.addSql(`create view "ingestion"."hogql_person_distinct_ids" with (security_invoker = true) as
      select d.distinct_id, p.uuid as person_id
      from "ingestion"."person_distinct_ids" d join "ingestion"."persons" p on p.id = d.person_id
      where d.environment_id = ${team} and p.environment_id = ${team};`);
    this.addSql(`create view "ingestion"."hogql_groups" with (security_invoker = true) as
      select g.group_type_index::int as index, g.group_key as key, g.group_properties as properties, g.created_at, g.updated_at
      from "ingestion"."groups" g where g.environment_id = ${team};`);
    this.addSql(`do $$ begin
      if exists (select 1 from pg_roles where rolname = '${HOGQL_READER_ROLE}') then
        execute 'grant select on "ingestion"."hogql_events", "ingestion"."hogql_persons", "ingestion"."hogql_person_distinct_ids", "ingestion"."hogql_groups" to "${HOGQL_READER_ROLE}"';
      end if;
    exception when insufficient_privilege then null;
    end $$;`);
  }

  override async down(): Promise<void> {
    for (const view of ['hogql_events', 'hogql_persons', 'hogql_person_distinct_ids', 'hogql_groups']) {
      this.addSql(`drop view if exists "ingestion"."${view}";`);
    }
    for (const name of TABLES) {
      this.addSql(`drop policy if exists "hogql_team" on "ingestion"."${name}";`);
      this.addSql(`alter table "ingestion"."${name}" disable row level security;`);
    }
    this.addSql(`do $$ begin
      grant execute on function pg_catalog.set_config(text, text, boolean) to public;
    exception when insufficient_privilege then null;
    end $$;`);
    this.addSql(`do $$ begin
      if exists (select 1 from pg_roles where rolname = '${HOGQL_READER_ROLE}') then
        execute 'revoke all on all tables in schema "ingestion" from "${HOGQL_READER_ROLE}"';
        execute 'revoke usage on schema "ingestion" from "${HOGQL_READER_ROLE}"';
      end if;
    end $$;`);
  }
}
