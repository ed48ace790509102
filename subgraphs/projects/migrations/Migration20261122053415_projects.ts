import { Migration } from '@mikro-orm/migrations';

export class Migration20261122053415_projects extends Migration {

  override async up(): Promise<void> {
    this.addSql(`drop index "projects"."projects_organization_id_index";`);

    this.addSql(`create index "projects_organization_id_deleted_at_index" on "projects"."projects" ("organization_id", "deleted_at");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "projects"."projects_organization_id_deleted_at_index";`);

    this.addSql(`create index "projects_organization_id_index" on "projects"."projects" ("organization_id");`);
  }

}
