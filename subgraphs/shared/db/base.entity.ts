import { randomUUID } from 'node:crypto';
import { PrimaryKey, Property } from '@mikro-orm/core';

/** A row known by a random uuid, made with the object (so it is known before the insert). */
export abstract class UuidEntity {
  @PrimaryKey({ type: 'uuid' })
  id: string = randomUUID();
}

/** A row of one environment (team), the unit every tenant-scoped read filters by. */
export abstract class EnvironmentEntity extends UuidEntity {
  /** The environment (team) it belongs to; `:project_id` in the REST path. */
  @Property({ type: 'integer' })
  environment_id!: number;
}
