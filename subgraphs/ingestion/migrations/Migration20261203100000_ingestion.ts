import { Migration } from '@mikro-orm/migrations';

export class Migration20261203100000_ingestion extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "ingestion"."profile_updates" add column "mirror" jsonb null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "ingestion"."profile_updates" drop column "mirror";`);
  }
}
