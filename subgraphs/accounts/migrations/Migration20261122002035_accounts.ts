import { Migration } from '@mikro-orm/migrations';

export class Migration20261122002035_accounts extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create schema if not exists "accounts";`);
    this.addSql(`create table "accounts"."users" ("id" serial primary key, "uuid" uuid not null, "distinct_id" text not null, "first_name" text not null default '', "last_name" text not null default '', "email" text not null, "password_hash" text not null, "is_email_verified" boolean not null default false, "is_active" boolean not null default true, "hedgehog_config" jsonb null, "role_at_organization" text null, "created_at" timestamptz not null);`);
    this.addSql(`alter table "accounts"."users" add constraint "users_uuid_unique" unique ("uuid");`);
    this.addSql(`alter table "accounts"."users" add constraint "users_distinct_id_unique" unique ("distinct_id");`);
    this.addSql(`alter table "accounts"."users" add constraint "users_email_unique" unique ("email");`);

    this.addSql(`create table "accounts"."personal_api_keys" ("id" uuid not null, "user_id" int not null, "label" text not null, "secure_value" text not null, "mask_value" text not null, "scopes" jsonb not null, "created_at" timestamptz not null, "last_used_at" timestamptz null, constraint "personal_api_keys_pkey" primary key ("id"));`);
    this.addSql(`create index "personal_api_keys_user_id_index" on "accounts"."personal_api_keys" ("user_id");`);
    this.addSql(`alter table "accounts"."personal_api_keys" add constraint "personal_api_keys_secure_value_unique" unique ("secure_value");`);

    this.addSql(`alter table "accounts"."personal_api_keys" add constraint "personal_api_keys_user_id_foreign" foreign key ("user_id") references "accounts"."users" ("id") on update cascade on delete cascade;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "accounts"."personal_api_keys" drop constraint "personal_api_keys_user_id_foreign";`);

    this.addSql(`drop table if exists "accounts"."users" cascade;`);

    this.addSql(`drop table if exists "accounts"."personal_api_keys" cascade;`);

    this.addSql(`drop schema if exists "accounts";`);
  }

}
