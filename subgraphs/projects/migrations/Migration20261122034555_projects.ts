import { Migration } from '@mikro-orm/migrations';

export class Migration20261122034555_projects extends Migration {

  override async up(): Promise<void> {
    // Trusted since PostgreSQL 13: a database owner may create it. Made in public, where the index names its operator class.
    this.addSql(`create extension if not exists pg_trgm with schema public;`);
    this.addSql(`create index "projects_name_trgm_index" on "projects"."projects" using gin ("name" public.gin_trgm_ops);`);

    this.addSql(`create table "projects"."group_types" ("id" serial primary key, "project_id" int not null, "group_type" text not null, "group_type_index" smallint not null, "name_singular" text null, "name_plural" text null, "created_at" timestamptz not null);`);
    this.addSql(`alter table "projects"."group_types" add constraint "group_types_project_id_group_type_index_unique" unique ("project_id", "group_type_index");`);
    this.addSql(`alter table "projects"."group_types" add constraint "group_types_project_id_group_type_unique" unique ("project_id", "group_type");`);

    this.addSql(`create table "projects"."setting_changes" ("log_id" bigint not null, "position" smallint not null, "environment_id" int not null, "field" text not null, "action" text not null, "before" jsonb null, "created_at" timestamptz(6) not null, constraint "setting_changes_pkey" primary key ("log_id", "position"));`);
    this.addSql(`create index "setting_changes_environment_id_field_created_at_log_id_index" on "projects"."setting_changes" ("environment_id", "field", "created_at", "log_id");`);

    this.addSql(`alter table "projects"."group_types" add constraint "group_types_project_id_foreign" foreign key ("project_id") references "projects"."projects" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "projects"."setting_changes" add constraint "setting_changes_log_id_foreign" foreign key ("log_id") references "projects"."activity_log" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "projects"."memberships" add column "updated_at" timestamptz not null default now();`);

    this.addSql(`alter table "projects"."environments" add column "ingested_event" boolean not null default false;`);

    // The changes logged before this table existed, so settings_as_of stays exact across the upgrade.
    this.addSql(`insert into "projects"."setting_changes" ("log_id", "position", "environment_id", "field", "action", "before", "created_at")
      select l.id, c.position - 1, l.environment_id, c.change->>'field', c.change->>'action', c.change->'before', l.created_at
        from "projects"."activity_log" l, jsonb_array_elements(l.changes) with ordinality as c(change, position)
       where l.environment_id is not null and c.change->>'field' is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "projects"."group_types" cascade;`);

    this.addSql(`drop table if exists "projects"."setting_changes" cascade;`);

    this.addSql(`alter table "projects"."environments" drop column "ingested_event";`);

    this.addSql(`alter table "projects"."memberships" drop column "updated_at";`);
  }

}
