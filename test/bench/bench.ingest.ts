import http from 'node:http';
import { generateEvents } from '../kit/events.js';
import { say } from './bench.lifecycle.js';
import { httpRequest } from './http.request.js';
import type { Bootstrapped, RunningPlatform } from './platform.fixture.js';

/** Sends `count` generated events (test/kit/events.ts) through `/batch/` in batches of `batchSize`, from `senders` connections at once. */
export async function ingestGenerated(platform: RunningPlatform, account: Bootstrapped, count: number, now: number, { batchSize = 1000, senders = 4 } = {}): Promise<void> {
  const events = [...generateEvents(count, { now })];
  const head = `{"api_key":${JSON.stringify(account.project_api_key)},"historical_migration":true,"batch":`;
  const bodies: Buffer[] = [];
  for (let index = 0; index < events.length; index += batchSize) bodies.push(Buffer.from(`${head}${JSON.stringify(events.slice(index, index + batchSize))}}`));
  const started = performance.now();
  let next = 0;
  const agent = new http.Agent({ keepAlive: true, maxSockets: senders });
  await Promise.all(
    Array.from({ length: senders }, async () => {
      while (next < bodies.length) {
        const { status, text } = await httpRequest(`${platform.url}/batch/`, 'POST', bodies[next++]!, {}, agent);
        if (status !== 200) throw new Error(`/batch/ answered ${status}: ${text.slice(0, 300)}`);
      }
    }),
  );
  agent.destroy();
  say(`ingested ${count.toLocaleString('en')} events in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
