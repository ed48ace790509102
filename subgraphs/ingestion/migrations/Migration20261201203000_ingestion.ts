import { Migration } from '@mikro-orm/migrations';

const VIEWS = ['hogql_events', 'hogql_persons', 'hogql_person_distinct_ids', 'hogql_groups'];

/**
 * Written by hand: the HogQL views become security barriers. Without it the planner may evaluate
 * a query's own conditions before a view's team filter, so that a function that fails with its
 * argument in the message (a cast of a property, a division) could show a value of a row the
 * filter would have dropped. The row-level security beneath already keeps such conditions after
 * its policy; the barrier makes the views hold alone, where the reader role is unavailable.
 */
export class Migration20261201203000_ingestion extends Migration {
  override async up(): Promise<void> {
    for (const view of VIEWS) this.addSql(`alter view "ingestion"."${view}" set (security_barrier = true);`);
  }

  override async down(): Promise<void> {
    for (const view of VIEWS) this.addSql(`alter view "ingestion"."${view}" reset (security_barrier);`);
  }
}
