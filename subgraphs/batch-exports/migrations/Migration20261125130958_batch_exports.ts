import { Migration } from '@mikro-orm/migrations';

export class Migration20261125130958_batch_exports extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create schema if not exists "batch_exports";`);
    this.addSql(`create table "batch_exports"."batch_exports" ("id" uuid not null, "environment_id" int not null, "project_id" int not null, "name" text not null, "model" text not null, "destination_type" text not null, "destination_config" jsonb not null, "destination_secrets" text null, "interval" text not null, "interval_offset" int null, "timezone" text not null default 'UTC', "paused" boolean not null default false, "last_paused_at" timestamptz null, "start_at" timestamptz null, "end_at" timestamptz null, "hogql_query" text null, "schema" jsonb null, "filters" jsonb null, "created_by_id" int null, "created_at" timestamptz not null, "last_updated_at" timestamptz not null, "scheduled_until" timestamptz not null, constraint "batch_exports_pkey" primary key ("id"));`);
    this.addSql(`create index "batch_exports_environment_id_created_at_index" on "batch_exports"."batch_exports" ("environment_id", "created_at");`);

    this.addSql(`create table "batch_exports"."batch_export_backfills" ("id" uuid not null, "batch_export_id" uuid not null, "environment_id" int not null, "start_at" timestamptz null, "end_at" timestamptz not null, "status" text not null default 'Running', "total_runs" int not null default 0, "total_records_count" bigint null, "created_at" timestamptz not null, "last_updated_at" timestamptz not null, "finished_at" timestamptz null, constraint "batch_export_backfills_pkey" primary key ("id"));`);
    this.addSql(`create index "batch_export_backfills_environment_id_batch_export_6562a_index" on "batch_exports"."batch_export_backfills" ("environment_id", "batch_export_id", "created_at");`);

    this.addSql(`create table "batch_exports"."batch_export_runs" ("id" uuid not null, "batch_export_id" uuid not null, "environment_id" int not null, "origin" text not null, "backfill_id" uuid null, "status" text not null default 'Starting', "data_interval_start" timestamptz null, "data_interval_end" timestamptz not null, "records_completed" bigint null, "records_total_count" bigint null, "bytes_exported" bigint null, "latest_error" text null, "cursor" jsonb null, "attempt" int not null default 0, "retry_at" timestamptz null, "heartbeat_at" timestamptz null, "created_at" timestamptz not null, "last_updated_at" timestamptz not null, "finished_at" timestamptz null, constraint "batch_export_runs_pkey" primary key ("id"));`);
    this.addSql(`create index "batch_export_runs_backfill_id_status_index" on "batch_exports"."batch_export_runs" ("backfill_id", "status");`);
    this.addSql(`create index "batch_export_runs_status_heartbeat_at_index" on "batch_exports"."batch_export_runs" ("status", "heartbeat_at");`);
    this.addSql(`create index "batch_export_runs_environment_id_batch_export_id_c_b166f_index" on "batch_exports"."batch_export_runs" ("environment_id", "batch_export_id", "created_at");`);
    this.addSql(`alter table "batch_exports"."batch_export_runs" add constraint "batch_export_runs_batch_export_id_origin_data_int_9c08d_unique" unique ("batch_export_id", "origin", "data_interval_end");`);

    this.addSql(`alter table "batch_exports"."batch_export_backfills" add constraint "batch_export_backfills_batch_export_id_foreign" foreign key ("batch_export_id") references "batch_exports"."batch_exports" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "batch_exports"."batch_export_runs" add constraint "batch_export_runs_batch_export_id_foreign" foreign key ("batch_export_id") references "batch_exports"."batch_exports" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "batch_exports"."batch_export_backfills" drop constraint "batch_export_backfills_batch_export_id_foreign";`);

    this.addSql(`alter table "batch_exports"."batch_export_runs" drop constraint "batch_export_runs_batch_export_id_foreign";`);

    this.addSql(`drop table if exists "batch_exports"."batch_exports" cascade;`);

    this.addSql(`drop table if exists "batch_exports"."batch_export_backfills" cascade;`);

    this.addSql(`drop table if exists "batch_exports"."batch_export_runs" cascade;`);

    this.addSql(`drop schema if exists "batch_exports";`);
  }

}
