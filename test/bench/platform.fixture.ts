import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { BenchChild, freePort, logRecord } from './child.process.js';

const run = promisify(execFile);

/** The platform as `npm start` runs it, in its own process. */
export interface RunningPlatform {
  child: BenchChild;
  url: string;
  /** subgraph name → URL, as the platform logged them. */
  subgraphUrls: Record<string, string>;
}

/** What the load runs read: one tenant's key and environment, holding `CONFIG_COUNT` configs. */
export interface Seed {
  personal_api_key: string;
  environment_id: number;
  project_name: string;
}

export const CONFIG_COUNT = 20;
const PROJECT_NAME = 'Bench project';

/** The platform's environment: only what the benchmark sets, on top of the caller's. */
export function platformEnv(settings: { databaseUrl: string; secretKey: string; dataDir: string; port?: number }): NodeJS.ProcessEnv {
  return {
    ...process.env,
    DATABASE_URL: settings.databaseUrl,
    SECRET_KEY: settings.secretKey,
    DATA_DIR: settings.dataDir,
    HOST: '127.0.0.1',
    PORT: String(settings.port ?? 0),
    LOG_LEVEL: 'info',
    // A blank value counts as unset: the in-process pub/sub and the platform's own subgraphs,
    // whatever the caller's shell exports.
    REDIS_URL: '',
    SUBGRAPH_URLS: '',
    // The load comes from one key and one project token: a bench measures the platform, not its rate limits.
    RATE_LIMIT_PERSONAL_KEY_PER_MINUTE: '0',
    RATE_LIMIT_PERSONAL_KEY_PER_HOUR: '0',
    RATE_LIMIT_PROJECT_TOKEN_PER_MINUTE: '0',
  };
}

const READY_LINE = /^Analytics platform listening on (\S+)$/;

/**
 * Starts `node dist/router/process/main.js` and waits for "platform listening", noting each subgraph's URL
 * (logged at LOG_LEVEL=info only).
 */
export async function startPlatform(root: string, env: NodeJS.ProcessEnv): Promise<RunningPlatform> {
  const port = await freePort();
  const child = BenchChild.start('the platform', resolve(root, 'dist/router/process/main.js'), [], { cwd: root, env: { ...env, PORT: String(port) } });
  const subgraphUrls: Record<string, string> = {};
  try {
    const url = await child.waitFor((line) => {
      const record = logRecord(line);
      if (record?.msg === 'subgraph listening') subgraphUrls[String(record.subgraph)] = String(record.url);
      if (record?.msg === 'platform listening') return String(record.url);
      // Below LOG_LEVEL=info there is no log record, only the line the router prints for people.
      return READY_LINE.exec(line)?.[1];
    });
    return { child, url, subgraphUrls };
  } catch (error) {
    await child.stop();
    throw error;
  }
}

/** What the bootstrap CLI prints. */
export interface Bootstrapped {
  personal_api_key: string;
  organization_id: string;
  project_id: number;
  environment_id: number;
  project_api_key: string;
}

/** A user, an organization they own, a project named `projectName` and a `*` key, from the bootstrap CLI. */
export async function bootstrap(root: string, env: NodeJS.ProcessEnv, projectName: string): Promise<Bootstrapped> {
  const cli = resolve(root, 'dist/router/process/cli/bootstrap.cli.js');
  const args = ['--email', 'bench@example.test', '--password', 'correct horse battery staple', '--project', projectName];
  const { stdout } = await run(process.execPath, [cli, ...args], { cwd: root, env });
  return JSON.parse(stdout) as Bootstrapped;
}

/** A user, organization, project and `*` key from the bootstrap CLI, then configs through REST. */
export async function seed(root: string, env: NodeJS.ProcessEnv, platformUrl: string): Promise<Seed> {
  const result = await bootstrap(root, env, PROJECT_NAME);
  const seeded = { ...result, project_name: PROJECT_NAME };
  for (let index = 0; index < CONFIG_COUNT; index += 1) await createConfig(platformUrl, seeded, index);
  return seeded;
}

async function createConfig(platformUrl: string, seeded: Seed, index: number): Promise<void> {
  const response = await fetch(`${platformUrl}/api/environments/${seeded.environment_id}/customer_profile_configs/`, {
    method: 'POST',
    headers: { authorization: `Bearer ${seeded.personal_api_key}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      scope: 'person',
      content: { blocks: [{ type: 'properties', title: `Block ${index}`, properties: ['email', 'name', 'plan'] }] },
    }),
  });
  if (response.status !== 201) throw new Error(`creating config ${index} answered ${response.status}: ${await response.text()}`);
}
