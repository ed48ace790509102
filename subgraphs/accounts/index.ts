import { defineSubgraph } from '../shared/subgraph/define.js';
import { batchedReference } from '../shared/subgraph/references.js';
import { migrations } from './migrations/index.js';
import { PersonalApiKey } from './personal-api-keys/personal-api-key.entity.js';
import { PersonalApiKeyResolver } from './personal-api-keys/personal-api-key.resolver.js';
import { User } from './users/user.entity.js';
import { UserResolver } from './users/user.resolver.js';
import { UserService } from './users/user.service.js';

export const accounts = defineSubgraph({
  name: 'accounts',
  entities: [User, PersonalApiKey],
  migrations,
  resolvers: [UserResolver, PersonalApiKeyResolver],
  references: {
    // Brief user records are public to whoever may read the record that embeds them.
    User: batchedReference(
      (reference) => Number(reference.id),
      (ids, { em }) => new UserService(em).findByIds(ids),
    ),
  },
});
