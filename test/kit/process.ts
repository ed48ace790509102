import { spawn, type ChildProcess } from 'node:child_process';

/** Where the test run compiles the code that its child processes run (see global-setup). */
export const BUILD_DIR = '.test-build';

export { freePort } from '../../subgraphs/shared/net.js';

export interface Platform {
  child: ChildProcess;
  url: string;
  stdout: string[];
  stderr: string[];
  exited: Promise<number | null>;
}

/** The built `router/main.js` as `npm start` runs it, with exactly the given environment. */
export async function startPlatform(env: Record<string, string>, timeoutMs = 90_000): Promise<Platform> {
  const child = spawn(process.execPath, [`${BUILD_DIR}/router/main.js`], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const stdout: string[] = [];
  const stderr: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`platform did not start:\n${stderr.join('').slice(-3000)}`)), timeoutMs);
    child.stdout!.on('data', (chunk: Buffer) => {
      stdout.push(chunk.toString());
      const match = /listening on (http:\/\/\S+)/.exec(stdout.join(''));
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`platform exited with ${code}:\n${stderr.join('').slice(-3000)}`));
    });
  });
  return { child, url, stdout, stderr, exited };
}

/** Runs a built CLI to completion. */
export function runCli(script: string, args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [script, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
