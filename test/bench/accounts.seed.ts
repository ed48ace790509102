import pg from 'pg';
import { BackupCodeHasher, maskBackupCode, newBackupCodes } from '../../subgraphs/accounts/two-factor/backup-codes.js';
import { newTotpSecret } from '../../subgraphs/accounts/two-factor/totp.js';
import { generateToken } from '../../subgraphs/shared/crypto.js';
import { SecretBox, tokenHash } from '../../subgraphs/shared/secrets.js';

export interface TwoFactorUser {
  key: string;
  secret: string;
  backupCodes: string[];
}

/**
 * Users with two-factor authentication on, each with a `user:write` key: set-based SQL, with the
 * secrets sealed under the platform's SECRET_KEY as the API would seal them.
 */
export async function seedTwoFactorUsers(databaseUrl: string, secretKey: string, count: number): Promise<TwoFactorUser[]> {
  const box = new SecretBox(secretKey);
  const hasher = new BackupCodeHasher(secretKey);
  const users = Array.from({ length: count }, (_, index) => ({ index, key: generateToken('phx_'), secret: newTotpSecret(), backupCodes: newBackupCodes() }));
  const rows = users.map(({ index, key, secret, backupCodes }) => ({
    email: `bench-2fa-${index}@example.test`,
    key_hash: tokenHash(key),
    key_mask: `${key.slice(0, 4)}...${key.slice(-4)}`,
    secret_sealed: box.seal(secret),
    backup_codes: backupCodes.map((code) => ({ masked: maskBackupCode(code), plain: code })),
  }));
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `with given as (select * from jsonb_to_recordset($1::jsonb) as g(email text, key_hash text, key_mask text, secret_sealed text)),
            made as (
              insert into accounts.users (uuid, distinct_id, email, password_hash, first_name, last_name, is_email_verified, is_active, created_at)
              select gen_random_uuid(), gen_random_uuid()::text, email, 'scrypt$unused', '', '', true, true, now() from given
              returning id, email),
            keys as (
              insert into accounts.personal_api_keys (id, user_id, label, secure_value, mask_value, scopes, created_at)
              select gen_random_uuid(), made.id, 'bench', given.key_hash, given.key_mask, '["user:write"]'::jsonb, now()
                from made join given using (email))
       insert into accounts.totp_devices (user_id, secret_sealed, confirmed, created_at, confirmed_at)
       select made.id, given.secret_sealed, true, now(), now() from made join given using (email)`,
      [JSON.stringify(rows.map(({ backup_codes: _, ...row }) => row))],
    );
    // Backup codes are hashed with the user's id, known only now.
    const ids = await client.query<{ id: number; email: string }>('select id, email from accounts.users where email like $1', ['bench-2fa-%']);
    const idOf = new Map(ids.rows.map((row) => [row.email, row.id]));
    const codes = rows.flatMap((row) => row.backup_codes.map((code) => ({ user_id: idOf.get(row.email)!, code_hash: hasher.hash(idOf.get(row.email)!, code.plain), masked: code.masked })));
    await client.query(
      `insert into accounts.two_factor_backup_codes (user_id, code_hash, masked, created_at)
       select user_id, code_hash, masked, now() from jsonb_to_recordset($1::jsonb) as c(user_id int, code_hash text, masked text)`,
      [JSON.stringify(codes)],
    );
  } finally {
    await client.end();
  }
  return users.map(({ key, secret, backupCodes }) => ({ key, secret, backupCodes }));
}
