import { Migration } from '@mikro-orm/migrations';

export class Migration20261203070730_projects extends Migration {

  override async up(): Promise<void> {
    this.addSql(`alter table "projects"."memberships" add column "user_uuid" uuid;`);
    // Memberships made before the column: their users' uuids, read once from the accounts schema
    // of the same database (a fresh database has no memberships and may have no users table yet).
    this.addSql(`do $$ begin
      if to_regclass('accounts.users') is not null then
        update "projects"."memberships" m set "user_uuid" = u."uuid" from "accounts"."users" u where u."id" = m."user_id";
      end if;
    end $$;`);
    this.addSql(`alter table "projects"."memberships" alter column "user_uuid" set not null;`);
    this.addSql(`alter table "projects"."memberships" add constraint "memberships_organization_id_user_uuid_unique" unique ("organization_id", "user_uuid");`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "projects"."memberships" drop constraint "memberships_organization_id_user_uuid_unique";`);
    this.addSql(`alter table "projects"."memberships" drop column "user_uuid";`);
  }

}
