import { Migration } from '@mikro-orm/migrations';

export class Migration20261122062940_accounts extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "accounts"."outbox" ("id" bigserial primary key, "recipient" text not null, "subject" text not null, "body" text null, "purpose" text not null, "status" text not null default 'pending', "attempts" smallint not null default 0, "next_attempt_at" timestamptz not null, "last_error" text null, "lease_until" timestamptz null, "created_at" timestamptz not null, "sent_at" timestamptz null);`);
    this.addSql(`create index "outbox_status_next_attempt_at_index" on "accounts"."outbox" ("status", "next_attempt_at");`);

    this.addSql(`create table "accounts"."totp_devices" ("id" serial primary key, "user_id" int not null, "secret_sealed" text not null, "confirmed" boolean not null default false, "last_used_step" bigint null, "created_at" timestamptz not null, "confirmed_at" timestamptz null);`);
    this.addSql(`alter table "accounts"."totp_devices" add constraint "totp_devices_user_id_unique" unique ("user_id");`);

    this.addSql(`create table "accounts"."email_verification_tokens" ("id" uuid not null, "user_id" int not null, "email" text not null, "origin" text not null default 'request', "token_hash" text not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "used_at" timestamptz null, constraint "email_verification_tokens_pkey" primary key ("id"));`);
    this.addSql(`alter table "accounts"."email_verification_tokens" add constraint "email_verification_tokens_token_hash_unique" unique ("token_hash");`);
    this.addSql(`create index "email_verification_tokens_user_id_created_at_index" on "accounts"."email_verification_tokens" ("user_id", "created_at");`);

    this.addSql(`create table "accounts"."credential_failures" ("id" bigserial primary key, "user_id" int not null, "kind" text not null, "created_at" timestamptz not null);`);
    this.addSql(`create index "credential_failures_user_id_kind_created_at_index" on "accounts"."credential_failures" ("user_id", "kind", "created_at");`);

    this.addSql(`create table "accounts"."two_factor_backup_codes" ("id" serial primary key, "user_id" int not null, "code_hash" text not null, "masked" text not null, "created_at" timestamptz not null, "used_at" timestamptz null);`);
    this.addSql(`create index "two_factor_backup_codes_user_id_used_at_index" on "accounts"."two_factor_backup_codes" ("user_id", "used_at");`);

    this.addSql(`alter table "accounts"."totp_devices" add constraint "totp_devices_user_id_foreign" foreign key ("user_id") references "accounts"."users" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "accounts"."email_verification_tokens" add constraint "email_verification_tokens_user_id_foreign" foreign key ("user_id") references "accounts"."users" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "accounts"."credential_failures" add constraint "credential_failures_user_id_foreign" foreign key ("user_id") references "accounts"."users" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "accounts"."two_factor_backup_codes" add constraint "two_factor_backup_codes_user_id_foreign" foreign key ("user_id") references "accounts"."users" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "accounts"."users" add column "pending_email" text null, add column "is_staff" boolean not null default false, add column "anonymize_data" boolean not null default false, add column "notification_settings" jsonb not null default '{}', add column "toolbar_mode" text not null default 'toolbar', add column "theme_mode" text null, add column "events_column_config" jsonb null, add column "has_seen_product_intro_for" jsonb null, add column "current_organization_id" uuid null, add column "current_team_id" int null, add column "password_changed_at" timestamptz null, add column "updated_at" timestamptz not null default now();`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "accounts"."outbox" cascade;`);

    this.addSql(`drop table if exists "accounts"."totp_devices" cascade;`);

    this.addSql(`drop table if exists "accounts"."email_verification_tokens" cascade;`);

    this.addSql(`drop table if exists "accounts"."credential_failures" cascade;`);

    this.addSql(`drop table if exists "accounts"."two_factor_backup_codes" cascade;`);

    this.addSql(`alter table "accounts"."users" drop column "pending_email", drop column "is_staff", drop column "anonymize_data", drop column "notification_settings", drop column "toolbar_mode", drop column "theme_mode", drop column "events_column_config", drop column "has_seen_product_intro_for", drop column "current_organization_id", drop column "current_team_id", drop column "password_changed_at", drop column "updated_at";`);
  }

}
