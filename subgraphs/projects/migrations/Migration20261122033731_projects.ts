import { Migration } from '@mikro-orm/migrations';

export class Migration20261122033731_projects extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "projects"."memberships" add column "updated_at" timestamptz not null default now();`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "projects"."memberships" drop column "updated_at";`);
  }

}
