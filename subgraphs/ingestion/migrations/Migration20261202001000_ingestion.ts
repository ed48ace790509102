import { Migration } from '@mikro-orm/migrations';

/**
 * Written by hand: indexes in the lists' orders, so that a page walks one and stops. The persons
 * list orders by (created_at, id), newest first: an index of (environment_id, created_at) alone
 * left the planner sorting each run of equal times after the scan. The groups list orders one
 * type's groups newest first, then by key, which no index held: every group of the type was sorted.
 */
export class Migration20261202001000_ingestion extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create index "persons_environment_id_created_at_id_index" on "ingestion"."persons" ("environment_id", "created_at", "id");`);
    this.addSql(`drop index "ingestion"."persons_environment_id_created_at_index";`);
    this.addSql(`create index "groups_environment_id_type_created_at_key_index" on "ingestion"."groups" ("environment_id", "group_type_index", "created_at" desc, "group_key");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "ingestion"."groups_environment_id_type_created_at_key_index";`);
    this.addSql(`create index "persons_environment_id_created_at_index" on "ingestion"."persons" ("environment_id", "created_at");`);
    this.addSql(`drop index "ingestion"."persons_environment_id_created_at_id_index";`);
  }
}
