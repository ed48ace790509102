import { Migration } from '@mikro-orm/migrations';

export class Migration20261122062408_llm_analytics extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create schema if not exists "llm_analytics";`);
    this.addSql(`create table "llm_analytics"."provider_keys" ("id" uuid not null, "environment_id" int not null, "provider" text not null, "name" text not null, "api_key_sealed" text not null, "api_key_masked" text not null, "state" text not null default 'unknown', "error_message" text null, "created_by_id" int null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "last_used_at" timestamptz null, constraint "provider_keys_pkey" primary key ("id"));`);
    this.addSql(`create index "provider_keys_environment_id_created_at_index" on "llm_analytics"."provider_keys" ("environment_id", "created_at");`);

    this.addSql(`create table "llm_analytics"."active_provider_keys" ("environment_id" int not null, "provider" text not null, "key_id" uuid not null, "updated_at" timestamptz not null, constraint "active_provider_keys_pkey" primary key ("environment_id", "provider"));`);
    this.addSql(`alter table "llm_analytics"."active_provider_keys" add constraint "active_provider_keys_key_id_unique" unique ("key_id");`);

    this.addSql(`create table "llm_analytics"."summary_cache" ("key" text not null, "value" jsonb not null, "expires_at" timestamptz not null, constraint "summary_cache_pkey" primary key ("key"));`);
    this.addSql(`create index "summary_cache_expires_at_index" on "llm_analytics"."summary_cache" ("expires_at");`);

    this.addSql(`alter table "llm_analytics"."active_provider_keys" add constraint "active_provider_keys_key_id_foreign" foreign key ("key_id") references "llm_analytics"."provider_keys" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "llm_analytics"."active_provider_keys" drop constraint "active_provider_keys_key_id_foreign";`);

    this.addSql(`drop table if exists "llm_analytics"."provider_keys" cascade;`);

    this.addSql(`drop table if exists "llm_analytics"."active_provider_keys" cascade;`);

    this.addSql(`drop table if exists "llm_analytics"."summary_cache" cascade;`);

    this.addSql(`drop schema if exists "llm_analytics";`);
  }

}
