import { defineSubgraph } from '../shared/subgraph/define.js';
import { batchedReference } from '../shared/subgraph/references.js';
import { EmailVerificationToken } from './email-verification/email-verification-token.entity.js';
import { EmailVerificationResolver } from './email-verification/email-verification.resolver.js';
import { startMailWorker } from './mail/mail.worker.js';
import { OutboxMail } from './mail/outbox-mail.entity.js';
import { migrations } from './migrations/index.js';
import { PersonalApiKey } from './personal-api-keys/personal-api-key.entity.js';
import { PersonalApiKeyResolver } from './personal-api-keys/personal-api-key.resolver.js';
import { BackupCode } from './two-factor/backup-code.entity.js';
import { TotpDevice } from './two-factor/totp-device.entity.js';
import { TwoFactorResolver } from './two-factor/two-factor.resolver.js';
import { CredentialFailure } from './users/credential-failure.entity.js';
import { User } from './users/user.entity.js';
import { UserResolver } from './users/user.resolver.js';
import { UserService } from './users/user.service.js';

export const accounts = defineSubgraph({
  name: 'accounts',
  entities: [User, PersonalApiKey, EmailVerificationToken, OutboxMail, TotpDevice, BackupCode, CredentialFailure],
  migrations,
  resolvers: [UserResolver, PersonalApiKeyResolver, TwoFactorResolver, EmailVerificationResolver],
  orphanedTypes: [User],
  references: {
    // Brief user records are public to whoever may read the record that embeds them.
    User: batchedReference(
      (reference) => Number(reference.id),
      (ids, { em }) => new UserService(em).findByIds(ids),
    ),
  },
  startWorker: ({ orm, pubsub, log, config }) => startMailWorker({ orm, pubsub, log, smtpUrl: config.SMTP_URL, from: config.MAIL_FROM }),
});
