import { Migration } from '@mikro-orm/migrations';

/**
 * Written by hand: profile changes that wait for their batch's ClickHouse insert name its token,
 * unique among the environment's waiting rows, so that another attempt of the batch finds the
 * changes queued already instead of queuing them twice (a partial index: the other rows have none).
 */
export class Migration20261204100000_ingestion extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "ingestion"."profile_updates" add column "insert_token" text null, add column "insert_events" jsonb null;`);
    this.addSql(
      `create unique index "profile_updates_environment_id_insert_token_unique" on "ingestion"."profile_updates" ("environment_id", "insert_token") where "insert_token" is not null;`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "ingestion"."profile_updates_environment_id_insert_token_unique";`);
    this.addSql(`alter table "ingestion"."profile_updates" drop column "insert_token", drop column "insert_events";`);
  }
}
