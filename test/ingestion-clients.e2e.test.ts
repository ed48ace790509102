import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { PostHog } from 'posthog-node';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api } from './kit/http.js';
import { applyProfiles, daysAgo, eventCount } from './kit/ingest.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

const run = promisify(execFile);

let stack: Stack;
beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl'), ingestListener: true });
});
afterAll(() => stack?.stop());

const events = (owner: Tenant) =>
  api(stack.url, 'GET', `/api/environments/${owner.environment_id}/events/?limit=1000`, { key: owner.personal_api_key }).then((response) => response.body.results);

describe('the PostHog Node SDK (posthog-node) with historicalMigration', () => {
  it('delivers captured, identify and group events (gzipped, as it sends them), which read back with their times', async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'sdk');
    const errors: unknown[] = [];
    const client = new PostHog(owner.project_api_key, { host: stack.ingestUrl, historicalMigration: true, flushAt: 50, flushInterval: 0, fetchRetryCount: 0 });
    client.on('error', (error) => errors.push(error));
    const start = Date.parse(daysAgo(30));
    const when = (day: number) => new Date(start + day * 86_400_000);
    for (let day = 0; day < 20; day++) {
      client.capture({ distinctId: `user-${day % 4}`, event: day % 2 ? 'purchase' : '$pageview', properties: { day, $current_url: `https://shop.example/${day}` }, timestamp: when(day) });
    }
    // identify() and groupIdentify() date their events now; an import sends its person and group
    // updates as $identify / $group_identify events of their own time (API document, 4.9 rule 4).
    client.capture({ distinctId: 'user-0', event: '$identify', properties: { $set: { email: 'zero@example.com' } }, timestamp: when(20) });
    client.capture({ distinctId: 'user-0', event: '$group_identify', properties: { $group_type: 'company', $group_key: 'acme', $group_set: { name: 'Acme' } }, timestamp: when(20) });
    await client.shutdown();
    expect(errors).toEqual([]);

    const stored = await events(owner);
    const captured = stored.filter((event: { event: string }) => ['$pageview', 'purchase'].includes(event.event));
    expect(captured).toHaveLength(20);
    const day3 = captured.find((event: { properties: { day: number } }) => event.properties.day === 3);
    expect(day3).toMatchObject({ distinct_id: 'user-3', event: 'purchase', properties: { $lib: 'posthog-node', $current_url: 'https://shop.example/3' } });
    expect(Date.parse(day3.timestamp)).toBe(when(3).getTime());
    expect(stored.map((event: { event: string }) => event.event)).toEqual(expect.arrayContaining(['$identify', '$group_identify']));

    await applyProfiles(stack);
    const persons = await api(stack.url, 'GET', `/api/environments/${owner.environment_id}/persons/?distinct_id=user-0`, { key: owner.personal_api_key });
    expect(persons.body.results[0].properties).toMatchObject({ email: 'zero@example.com' });
    const group = await api(stack.url, 'GET', `/api/environments/${owner.environment_id}/groups/find/?group_type_index=0&group_key=acme`, { key: owner.personal_api_key });
    expect(group.body.group_properties).toEqual({ name: 'Acme' });
  });

  it('gets a 400 for an event under 48 hours old, and the batch is not stored', async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'sdk');
    const errors: { status?: number }[] = [];
    const client = new PostHog(owner.project_api_key, { host: stack.ingestUrl, historicalMigration: true, flushAt: 50, flushInterval: 0, fetchRetryCount: 0 });
    client.on('error', (error) => errors.push(error as { status?: number }));
    client.capture({ distinctId: 'u', event: 'old', timestamp: new Date(daysAgo(5)) });
    client.capture({ distinctId: 'u', event: 'recent', timestamp: new Date() });
    await client.shutdown();
    expect(errors.map((error) => error.status)).toEqual([400]);
    expect(await eventCount(inject('databaseUrl'), owner.environment_id)).toBe(0);
  });

  it('sends recent events, identify() and groupIdentify() without historicalMigration, the normal path', async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'sdk');
    const client = new PostHog(owner.project_api_key, { host: stack.url, flushAt: 1, flushInterval: 0 });
    client.capture({ distinctId: 'now', event: 'live' });
    client.identify({ distinctId: 'now', properties: { plan: 'team' } });
    client.groupIdentify({ groupType: 'company', groupKey: 'initech', properties: { size: 3 } });
    await client.shutdown();
    expect((await events(owner)).map((event: { event: string }) => event.event).sort()).toEqual(['$groupidentify', '$identify', 'live']);
    await applyProfiles(stack);
    const persons = await api(stack.url, 'GET', `/api/environments/${owner.environment_id}/persons/?distinct_id=now`, { key: owner.personal_api_key });
    expect(persons.body.results[0].properties).toEqual({ plan: 'team' });
  });
});

describe('curl', () => {
  it('posts a JSON file and a gzipped one, as the API document shows', async () => {
    const owner = await seedTenant(inject('databaseUrl'), 'curl');
    const dir = mkdtempSync(join(tmpdir(), 'analytics-curl-'));
    const body = JSON.stringify({
      api_key: owner.project_api_key,
      historical_migration: true,
      batch: [{ event: '$pageview', properties: { distinct_id: 'curl-user', $current_url: 'https://example.com' }, timestamp: daysAgo(3) }],
    });
    writeFileSync(join(dir, 'batch.json'), body);
    writeFileSync(join(dir, 'batch.json.gz'), gzipSync(body.replace('$pageview', 'zipped')));
    const post = (file: string, ...headers: string[]) =>
      run('curl', ['-sS', '-w', '\n%{http_code}', '-X', 'POST', `${stack.ingestUrl}/batch/`, '-H', 'Content-Type: application/json', ...headers.flatMap((header) => ['-H', header]), '--data-binary', `@${join(dir, file)}`]);
    expect((await post('batch.json')).stdout).toBe('{"status":"Ok"}\n200');
    expect((await post('batch.json.gz', 'Content-Encoding: gzip')).stdout).toBe('{"status":"Ok"}\n200');
    expect((await events(owner)).map((event: { event: string; distinct_id: string }) => [event.event, event.distinct_id]).sort()).toEqual([
      ['$pageview', 'curl-user'],
      ['zipped', 'curl-user'],
    ]);
  });
});
