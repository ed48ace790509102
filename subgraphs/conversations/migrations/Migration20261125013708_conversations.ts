import { Migration } from '@mikro-orm/migrations';

export class Migration20261125013708_conversations extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create schema if not exists "conversations";`);
    this.addSql(`create table "conversations"."conversations" ("id" uuid not null, "environment_id" int not null, "project_id" int not null, "user_id" int not null, "status" text check ("status" in ('idle', 'in_progress', 'canceling')) not null default 'idle', "title" text null, "type" text check ("type" in ('assistant', 'tool_call', 'deep_research', 'slack')) not null default 'assistant', "is_internal" boolean not null default false, "slack_thread_key" text null, "slack_workspace_domain" text null, "agent_mode" text null, "run_id" uuid null, "run_heartbeat_at" timestamptz null, "run_scopes" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "conversations_pkey" primary key ("id"));`);
    this.addSql(`create index "conversations_status_run_heartbeat_at_index" on "conversations"."conversations" ("status", "run_heartbeat_at");`);
    this.addSql(`create index "conversations_environment_id_user_id_updated_at_index" on "conversations"."conversations" ("environment_id", "user_id", "updated_at");`);

    this.addSql(`create table "conversations"."queue_items" ("id" uuid not null, "conversation_id" uuid not null, "content" text not null, "contextual_tools" jsonb null, "ui_context" jsonb null, "billing_context" jsonb null, "agent_mode" text null, "session_id" text null, "scopes" jsonb not null, "created_at" timestamptz not null, constraint "queue_items_pkey" primary key ("id"));`);
    this.addSql(`create index "queue_items_conversation_id_created_at_index" on "conversations"."queue_items" ("conversation_id", "created_at");`);

    // Written by hand (no entity describes it; see the subgraph's unmanagedTables): the append-only
    // message log, ordered by a bigserial so that messages written at once by a run and a client
    // keep one order; a conversation's messages go with it.
    this.addSql(`create table "conversations"."messages" ("position" bigserial primary key, "conversation_id" uuid not null references "conversations"."conversations" ("id") on delete cascade, "id" uuid not null unique, "message" jsonb not null, "created_at" timestamptz not null default now());`);
    this.addSql(`create index "messages_conversation_id_position_index" on "conversations"."messages" ("conversation_id", "position");`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "conversations"."messages" cascade;`);
    this.addSql(`drop table if exists "conversations"."conversations" cascade;`);

    this.addSql(`drop table if exists "conversations"."queue_items" cascade;`);

    this.addSql(`drop schema if exists "conversations";`);
  }

}
