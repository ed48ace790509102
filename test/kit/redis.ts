import { spawn, type ChildProcess } from 'node:child_process';

/** A Redis of the test's own, so that it can be stopped without disturbing other suites. */
export async function ownRedis(port: number): Promise<ChildProcess> {
  const server = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let attempt = 0; attempt < 50; attempt++) {
    const up = await fetch(`http://127.0.0.1:${port}`).then(
      () => true,
      (error: { cause?: { code?: string } }) => error.cause?.code !== 'ECONNREFUSED',
    );
    if (up) return server;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('redis-server did not start');
}

/** Kills a Redis started by {@link ownRedis} and waits until it has gone: one still dying would answer for the next on its port. */
export async function stopRedis(server: ChildProcess): Promise<void> {
  if (server.exitCode !== null || server.signalCode !== null) return;
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGKILL');
  await exited;
}
