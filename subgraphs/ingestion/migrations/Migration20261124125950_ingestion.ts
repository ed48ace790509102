import { Migration } from '@mikro-orm/migrations';

export class Migration20261124125950_ingestion extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "ingestion"."profile_updates" add column "bytes" int not null default 0, add column "attempts" int not null default 0, add column "last_error" text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "ingestion"."profile_updates" drop column "bytes", drop column "attempts", drop column "last_error";`);
  }

}
