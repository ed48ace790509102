import { Migration } from '@mikro-orm/migrations';

export class Migration20261122015800_projects extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create schema if not exists "projects";`);
    this.addSql(`create table "projects"."activity_log" ("id" bigserial primary key, "organization_id" uuid not null, "project_id" int not null, "environment_id" int null, "scope" text not null, "activity" text not null, "user_id" int null, "item_name" text not null, "changes" jsonb not null, "created_at" timestamptz(6) not null);`);
    this.addSql(`create index "activity_log_project_id_created_at_index" on "projects"."activity_log" ("project_id", "created_at");`);
    this.addSql(`create index "activity_log_environment_id_created_at_index" on "projects"."activity_log" ("environment_id", "created_at");`);

    this.addSql(`create table "projects"."deletion_jobs" ("id" serial primary key, "project_id" int not null, "environment_ids" jsonb not null, "attempts" int not null default 0, "last_error" text null, "created_at" timestamptz not null, "finished_at" timestamptz null);`);
    this.addSql(`create index "deletion_jobs_finished_at_id_index" on "projects"."deletion_jobs" ("finished_at", "id");`);

    this.addSql(`create table "projects"."organizations" ("id" uuid not null, "name" text not null, "created_at" timestamptz not null, constraint "organizations_pkey" primary key ("id"));`);

    this.addSql(`create table "projects"."memberships" ("id" serial primary key, "organization_id" uuid not null, "user_id" int not null, "level" smallint not null, "created_at" timestamptz not null);`);
    this.addSql(`create index "memberships_user_id_index" on "projects"."memberships" ("user_id");`);
    this.addSql(`alter table "projects"."memberships" add constraint "memberships_organization_id_user_id_unique" unique ("organization_id", "user_id");`);

    this.addSql(`create table "projects"."projects" ("id" int not null, "uuid" uuid not null, "organization_id" uuid not null, "name" text not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "deleted_at" timestamptz null, constraint "projects_pkey" primary key ("id"));`);
    this.addSql(`alter table "projects"."projects" add constraint "projects_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "projects_organization_id_index" on "projects"."projects" ("organization_id");`);

    this.addSql(`create table "projects"."environments" ("id" serial primary key, "uuid" uuid not null, "project_id" int not null, "name" text not null, "settings" jsonb not null, "api_token_hash" text not null, "api_token_sealed" text not null, "secret_api_token_sealed" text null, "secret_api_token_backup_sealed" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null);`);
    this.addSql(`alter table "projects"."environments" add constraint "environments_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "environments_project_id_index" on "projects"."environments" ("project_id");`);
    this.addSql(`alter table "projects"."environments" add constraint "environments_api_token_hash_unique" unique ("api_token_hash");`);

    this.addSql(`create table "projects"."product_intents" ("id" serial primary key, "environment_id" int not null, "product_type" text not null, "contexts" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "onboarding_completed_at" timestamptz null);`);
    this.addSql(`alter table "projects"."product_intents" add constraint "product_intents_environment_id_product_type_unique" unique ("environment_id", "product_type");`);

    this.addSql(`create table "projects"."ingestion_restrictions" ("id" serial primary key, "environment_id" int not null, "restriction_type" text not null, "distinct_ids" jsonb not null, "session_ids" jsonb not null, "event_names" jsonb not null, "event_uuids" jsonb not null, "pipelines" jsonb not null, "created_at" timestamptz not null);`);
    this.addSql(`alter table "projects"."ingestion_restrictions" add constraint "ingestion_restrictions_environment_id_restriction_type_unique" unique ("environment_id", "restriction_type");`);

    this.addSql(`create table "projects"."default_evaluation_tags" ("id" serial primary key, "environment_id" int not null, "name" text not null, "created_at" timestamptz not null);`);
    this.addSql(`alter table "projects"."default_evaluation_tags" add constraint "default_evaluation_tags_environment_id_name_unique" unique ("environment_id", "name");`);

    this.addSql(`alter table "projects"."memberships" add constraint "memberships_organization_id_foreign" foreign key ("organization_id") references "projects"."organizations" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "projects"."projects" add constraint "projects_organization_id_foreign" foreign key ("organization_id") references "projects"."organizations" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "projects"."environments" add constraint "environments_project_id_foreign" foreign key ("project_id") references "projects"."projects" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "projects"."product_intents" add constraint "product_intents_environment_id_foreign" foreign key ("environment_id") references "projects"."environments" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "projects"."ingestion_restrictions" add constraint "ingestion_restrictions_environment_id_foreign" foreign key ("environment_id") references "projects"."environments" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "projects"."default_evaluation_tags" add constraint "default_evaluation_tags_environment_id_foreign" foreign key ("environment_id") references "projects"."environments" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "projects"."memberships" drop constraint "memberships_organization_id_foreign";`);

    this.addSql(`alter table "projects"."projects" drop constraint "projects_organization_id_foreign";`);

    this.addSql(`alter table "projects"."environments" drop constraint "environments_project_id_foreign";`);

    this.addSql(`alter table "projects"."product_intents" drop constraint "product_intents_environment_id_foreign";`);

    this.addSql(`alter table "projects"."ingestion_restrictions" drop constraint "ingestion_restrictions_environment_id_foreign";`);

    this.addSql(`alter table "projects"."default_evaluation_tags" drop constraint "default_evaluation_tags_environment_id_foreign";`);

    this.addSql(`drop table if exists "projects"."activity_log" cascade;`);

    this.addSql(`drop table if exists "projects"."deletion_jobs" cascade;`);

    this.addSql(`drop table if exists "projects"."organizations" cascade;`);

    this.addSql(`drop table if exists "projects"."memberships" cascade;`);

    this.addSql(`drop table if exists "projects"."projects" cascade;`);

    this.addSql(`drop table if exists "projects"."environments" cascade;`);

    this.addSql(`drop table if exists "projects"."product_intents" cascade;`);

    this.addSql(`drop table if exists "projects"."ingestion_restrictions" cascade;`);

    this.addSql(`drop table if exists "projects"."default_evaluation_tags" cascade;`);

    this.addSql(`drop schema if exists "projects";`);
  }

}
