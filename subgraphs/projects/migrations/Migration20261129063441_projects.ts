import { Migration } from '@mikro-orm/migrations';

export class Migration20261129063441_projects extends Migration {

  override async up(): Promise<void> {
    this.addSql(`drop index "projects"."projects_name_trgm_index";`);

    this.addSql(`alter table "projects"."projects" add column "name_folded" text generated always as (lower(name)) stored not null;`);
    this.addSql(`create index "projects_name_folded_trgm_index" on "projects"."projects" using gin ("name_folded" public.gin_trgm_ops);`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "projects"."projects_name_folded_trgm_index";`);
    this.addSql(`alter table "projects"."projects" drop column "name_folded";`);

    // The generator reads the old index back without its method and operator class.
    this.addSql(`create index "projects_name_trgm_index" on "projects"."projects" using gin ("name" public.gin_trgm_ops);`);
  }

}
