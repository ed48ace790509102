import { liveHolder, stopPostmasterOf } from './postmaster.js';

/**
 * The watchdog of an embedded PostgreSQL (see watchPostmaster), run as
 * `node postmaster.watchdog.js <data directory> <DATA_DIR's lock file>`. Its stdin
 * is a pipe from the platform, which only the platform's end closes, however it ends: then, unless
 * another platform holds DATA_DIR by now, the server is stopped. A platform that stops the server
 * itself ends its watchdog once the server has stopped.
 */
const [directory, lockFile] = process.argv.slice(2);
let acting = false;

async function ownerGone(): Promise<void> {
  if (acting || !directory || !lockFile) return;
  acting = true;
  if (liveHolder(lockFile) === null) await stopPostmasterOf(directory).catch(() => undefined);
  process.exit(0);
}

process.stdin.on('end', () => void ownerGone());
process.stdin.on('close', () => void ownerGone());
process.stdin.on('error', () => void ownerGone());
process.stdin.resume();
