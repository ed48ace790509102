import { Migration } from '@mikro-orm/migrations';

/**
 * Written by hand: what batch exports read by. Events of an interval are found by the time they
 * were ingested (late and historical events included), persons by the time they last changed, and
 * a distinct id's version tells a destination which person it names now.
 */
export class Migration20261125200000_ingestion extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "events_environment_id_created_at_uuid_index" on "ingestion"."events" ("environment_id", "created_at", "uuid");`);
    this.addSql(`alter table "ingestion"."persons" add column "updated_at" timestamptz not null default now();`);
    this.addSql(`update "ingestion"."persons" set "updated_at" = "created_at";`);
    this.addSql(`create index "persons_environment_id_updated_at_index" on "ingestion"."persons" ("environment_id", "updated_at");`);
    this.addSql(`alter table "ingestion"."person_distinct_ids" add column "version" int not null default 0;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "ingestion"."person_distinct_ids" drop column "version";`);
    this.addSql(`drop index "ingestion"."persons_environment_id_updated_at_index";`);
    this.addSql(`alter table "ingestion"."persons" drop column "updated_at";`);
    this.addSql(`drop index "ingestion"."events_environment_id_created_at_uuid_index";`);
  }
}
