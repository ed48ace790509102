import { Migration } from '@mikro-orm/migrations';

export class Migration20261122002035_customer_profiles extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create schema if not exists "customer_profiles";`);
    this.addSql(`create table "customer_profiles"."customer_profile_configs" ("id" uuid not null, "environment_id" int not null, "project_id" int not null, "scope" text check ("scope" in ('person', 'group_0', 'group_1', 'group_2', 'group_3', 'group_4')) not null, "content" jsonb not null, "sidebar" jsonb not null, "created_by_id" int null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "customer_profile_configs_pkey" primary key ("id"));`);
    this.addSql(`create index "customer_profile_configs_environment_id_created_at_index" on "customer_profiles"."customer_profile_configs" ("environment_id", "created_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "customer_profiles"."customer_profile_configs" cascade;`);

    this.addSql(`drop schema if exists "customer_profiles";`);
  }

}
