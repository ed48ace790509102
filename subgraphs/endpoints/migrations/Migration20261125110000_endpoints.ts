import { Migration } from '@mikro-orm/migrations';

export class Migration20261125110000_endpoints extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create schema if not exists "endpoints";`);
    this.addSql(`create table "endpoints"."cached_results" ("cache_key" text not null, "environment_id" int not null, "version_id" uuid not null, "result" jsonb not null, "computed_at" timestamptz not null, constraint "cached_results_pkey" primary key ("cache_key"));`);
    this.addSql(`create index "cached_results_environment_id_computed_at_index" on "endpoints"."cached_results" ("environment_id", "computed_at");`);

    this.addSql(`create table "endpoints"."endpoints" ("id" uuid not null, "environment_id" int not null, "project_id" int not null, "name" text not null, "description" text not null default '', "query" jsonb not null, "is_active" boolean not null default true, "cache_age_seconds" int null, "current_version" int not null default 1, "derived_from_insight" text null, "created_by_id" int null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "last_executed_at" timestamptz null, constraint "endpoints_pkey" primary key ("id"));`);
    this.addSql(`create index "endpoints_environment_id_created_at_index" on "endpoints"."endpoints" ("environment_id", "created_at");`);
    this.addSql(`alter table "endpoints"."endpoints" add constraint "endpoints_environment_id_name_unique" unique ("environment_id", "name");`);

    this.addSql(`create table "endpoints"."endpoint_runs" ("id" bigserial primary key, "environment_id" int not null, "endpoint_name" text not null, "version" int not null, "by_personal_api_key" boolean not null, "client_query_id" text null, "started_at" timestamptz not null, "duration_ms" int not null, "source" text not null, "error" text null);`);
    this.addSql(`create index "endpoint_runs_environment_id_endpoint_name_started_at_index" on "endpoints"."endpoint_runs" ("environment_id", "endpoint_name", "started_at");`);

    this.addSql(`create table "endpoints"."endpoint_versions" ("id" uuid not null, "endpoint_id" uuid not null, "environment_id" int not null, "version" int not null, "query" jsonb not null, "description" text not null default '', "cache_age_seconds" int null, "is_active" boolean not null default true, "created_by_id" int null, "created_at" timestamptz not null, "is_materialized" boolean not null default false, "sync_frequency" text null, "materialization_status" text check ("materialization_status" in ('Running', 'Completed', 'Failed', 'Cancelled', 'Modified')) null, "last_materialized_at" timestamptz null, "materialization_error" text null, "materialized_columns" jsonb null, "refresh_due_at" timestamptz null, "materialized_has_more" boolean not null default false, constraint "endpoint_versions_pkey" primary key ("id"));`);
    this.addSql(`alter table "endpoints"."endpoint_versions" add constraint "endpoint_versions_endpoint_id_version_unique" unique ("endpoint_id", "version");`);

    this.addSql(`alter table "endpoints"."endpoint_versions" add constraint "endpoint_versions_endpoint_id_foreign" foreign key ("endpoint_id") references "endpoints"."endpoints" ("id") on update cascade on delete cascade;`);

    // Written by hand (no entity describes it; see the subgraph's unmanagedTables): the kept result
    // of each materialized version, one row per result row in its order, read by team; a version's
    // rows go with it.
    this.addSql(`create table "endpoints"."materialized_rows" ("version_id" uuid not null references "endpoints"."endpoint_versions" ("id") on delete cascade, "environment_id" int not null, "ordinal" int not null, "row" jsonb not null, constraint "materialized_rows_pkey" primary key ("version_id", "ordinal"));`);
    this.addSql(`create index "materialized_rows_environment_id_index" on "endpoints"."materialized_rows" ("environment_id");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop schema if exists "endpoints" cascade;`);
  }

}
