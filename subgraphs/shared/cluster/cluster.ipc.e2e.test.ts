import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BUILD_DIR } from '../../../test/kit/process.js';

const WORKERS = 20;
const MESSAGES_BEFORE_EXIT = 50;

/**
 * A cluster of real processes: the built hub broadcasts without pause while its workers end one
 * after another, as they do in a graceful stop. A worker that has exited looks connected until
 * the primary reads its channel's end, so writes to it fail (EPIPE); the primary must live on.
 */
describe('the cluster hub', () => {
  it('outlives broadcasts to workers that have just exited', async () => {
    const script = join(mkdtempSync(join(tmpdir(), 'analytics-ipc-')), 'hub.mjs');
    writeFileSync(
      script,
      `import cluster from 'node:cluster';
      import { ClusterHub, onBroadcast } from ${JSON.stringify(resolve(BUILD_DIR, 'subgraphs/shared/cluster/cluster.ipc.js'))};
      if (cluster.isPrimary) {
        const hub = new ClusterHub();
        for (let i = 0; i < ${WORKERS}; i++) hub.attach(cluster.fork());
        let sent = 0;
        const tick = () => {
          hub.broadcast('tick', sent++);
          if (Object.keys(cluster.workers).length > 0) setImmediate(tick);
          else console.log(JSON.stringify({ sent }));
        };
        tick();
      } else {
        let heard = 0;
        // Ends without closing the channel first, as a process that exits in the middle of a stop.
        onBroadcast('tick', () => ++heard === ${MESSAGES_BEFORE_EXIT} && process.reallyExit(0));
      }`,
    );
    const { stdout } = await promisify(execFile)(process.execPath, [script], { timeout: 60_000 });
    expect((JSON.parse(stdout) as { sent: number }).sent).toBeGreaterThanOrEqual(MESSAGES_BEFORE_EXIT);
  });
});
