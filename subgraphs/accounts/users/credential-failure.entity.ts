import { Entity, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/core';
import { User } from './user.entity.js';

/** `code`: a wrong two-factor code; `password`: a wrong current password. Each kind locks out on its own. */
export type CredentialKind = 'code' | 'password';

/** One wrong credential: enough of a kind within the window lock further attempts of that kind out. */
@Entity({ tableName: 'credential_failures' })
@Index({ properties: ['user', 'kind', 'created_at'] })
export class CredentialFailure {
  @PrimaryKey({ type: 'bigint', autoincrement: true })
  id!: string;

  @ManyToOne(() => User, { deleteRule: 'cascade' })
  user!: User;

  @Property({ type: 'text' })
  kind!: CredentialKind;

  @Property({ type: 'timestamptz' })
  created_at: Date = new Date();
}
