import { existsSync, readFileSync } from 'node:fs';
import type { Config } from '../../../subgraphs/shared/config.js';
import { openDatabase, type Database } from '../../../subgraphs/shared/db/database.js';
import { dataDirHolder } from '../../../subgraphs/shared/db/embedded.js';
import type { Logger } from '../../../subgraphs/shared/logger.js';
import { embeddedUrlFile } from '../platform.js';

/**
 * The installation's PostgreSQL for a command run beside the platform or without it: DATABASE_URL;
 * else the embedded database a running platform announces in DATA_DIR (it holds the directory, so
 * a second server cannot start there); else the embedded one, started here (the caller stops it).
 */
export async function openInstallationDatabase(config: Config, log: Logger): Promise<Database> {
  if (config.DATABASE_URL) return openDatabase(config, log);
  const announced = embeddedUrlFile(config);
  if (dataDirHolder(config.DATA_DIR) !== null && existsSync(announced)) return { url: readFileSync(announced, 'utf8').trim() };
  return openDatabase(config, log);
}
