import { Migration } from '@mikro-orm/migrations';

export class Migration20261123165205_ingestion extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create schema if not exists "ingestion";`);
    this.addSql(`create table "ingestion"."groups" ("environment_id" int not null, "group_type_index" smallint not null, "group_key" text not null, "group_properties" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "groups_pkey" primary key ("environment_id", "group_type_index", "group_key"));`);

    this.addSql(`create table "ingestion"."persons" ("id" bigserial primary key, "environment_id" int not null, "uuid" uuid not null, "properties" jsonb not null, "is_identified" boolean not null default false, "created_at" timestamptz not null, "version" int not null default 0);`);
    this.addSql(`alter table "ingestion"."persons" add constraint "persons_uuid_unique" unique ("uuid");`);
    this.addSql(`create index "persons_environment_id_created_at_index" on "ingestion"."persons" ("environment_id", "created_at");`);

    this.addSql(`create table "ingestion"."person_distinct_ids" ("environment_id" int not null, "distinct_id" text not null, "person_id" bigint not null, constraint "person_distinct_ids_pkey" primary key ("environment_id", "distinct_id"));`);
    this.addSql(`create index "person_distinct_ids_person_id_index" on "ingestion"."person_distinct_ids" ("person_id");`);

    this.addSql(`create table "ingestion"."profile_updates" ("id" bigserial primary key, "environment_id" int not null, "updates" jsonb not null, "entries" int not null, "created_at" timestamptz not null);`);
    this.addSql(`create index "profile_updates_environment_id_id_index" on "ingestion"."profile_updates" ("environment_id", "id");`);

    this.addSql(`alter table "ingestion"."person_distinct_ids" add constraint "person_distinct_ids_person_id_foreign" foreign key ("person_id") references "ingestion"."persons" ("id") on update cascade on delete cascade;`);

    // Written by hand (no entity describes them; see the subgraph's unmanagedTables): events are
    // partitioned by month of their timestamp, one partition for everything before 2000 and the
    // monthly ones made as events need them (events/event-partition.repository.ts). The indexes serve
    // reading an environment's events by time, by name and by distinct id, newest first.
    this.addSql(`create table "ingestion"."events" ("uuid" uuid not null, "environment_id" int not null, "event" text not null, "distinct_id" text not null, "timestamp" timestamptz not null, "properties" jsonb not null, "created_at" timestamptz not null default now()) partition by range ("timestamp");`);
    this.addSql(`create index "events_environment_id_timestamp_uuid_index" on "ingestion"."events" ("environment_id", "timestamp", "uuid");`);
    this.addSql(`create index "events_environment_id_event_timestamp_index" on "ingestion"."events" ("environment_id", "event", "timestamp");`);
    this.addSql(`create index "events_environment_id_distinct_id_timestamp_index" on "ingestion"."events" ("environment_id", "distinct_id", "timestamp");`);
    this.addSql(`create table "ingestion"."events_before_2000" partition of "ingestion"."events" for values from (minvalue) to ('2000-01-01 00:00:00+00');`);
    // Unique per environment whatever the month, so that a retried batch stores nothing twice; the
    // timestamp finds an event's partition when it is read by uuid.
    this.addSql(`create table "ingestion"."event_ids" ("environment_id" int not null, "uuid" uuid not null, "timestamp" timestamptz not null, constraint "event_ids_pkey" primary key ("environment_id", "uuid"));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "ingestion"."events" cascade;`);

    this.addSql(`drop table if exists "ingestion"."event_ids" cascade;`);

    this.addSql(`alter table "ingestion"."person_distinct_ids" drop constraint "person_distinct_ids_person_id_foreign";`);

    this.addSql(`drop table if exists "ingestion"."groups" cascade;`);

    this.addSql(`drop table if exists "ingestion"."persons" cascade;`);

    this.addSql(`drop table if exists "ingestion"."person_distinct_ids" cascade;`);

    this.addSql(`drop table if exists "ingestion"."profile_updates" cascade;`);

    this.addSql(`drop schema if exists "ingestion";`);
  }

}
