import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { backfill, createExport, drainExports, exportsPath, ingestedAsTheyHappened, runsOf, startReceiver } from './kit/batch-exports.js';
import { storedEvents, type StoredEvent } from './kit/events-store.js';
import { ingest, SEED_EVENTS } from './kit/endpoints.js';
import { api } from './kit/http.js';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
let owner: Tenant;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
/** What the receiver answers a request (by how many it has accepted before). */
let answer: (accepted: number) => number | Promise<number> = () => 200;

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  owner = await seedTenant(inject('databaseUrl'), 'exports-http');
  receiver = await startReceiver((_request, accepted) => answer(accepted));
  await ingest(stack, owner, SEED_EVENTS);
  await ingestedAsTheyHappened(inject('databaseUrl'), owner.environment_id);
});
afterAll(async () => {
  await stack?.stop();
  await receiver?.stop();
});

/** Events' uuids and names in uuid order: where they came from, not the order they were stored in. */
const byUuid = (events: StoredEvent[]) => events.map(({ uuid, event }) => ({ uuid, event })).sort((a, b) => a.uuid.localeCompare(b.uuid));

const httpDestination = (config: Record<string, unknown> = {}) => ({ type: 'HTTP', config: { url: receiver.url, token: 'receiver-token', ...config } });

describe('HTTP destination', () => {
  it('POSTs JSON lines with the bearer token and an idempotency key per chunk', async () => {
    receiver.received.length = 0;
    const created = await createExport(stack, owner, { destination: httpDestination() });
    expect(created.destination.config).toEqual({ url: receiver.url });
    await backfill(stack, owner, created.id, '2026-01-05T00:00:00Z', '2026-01-06T00:00:00Z');
    const [run] = await runsOf(stack, owner, created.id);
    expect(run).toMatchObject({ status: 'Completed', records_completed: 7, cursor: { chunks: 1, records: 7 } });
    expect(receiver.received).toHaveLength(1);
    const [request] = receiver.received;
    expect(request!.headers).toMatchObject({ authorization: 'Bearer receiver-token', 'content-type': 'application/x-ndjson', 'idempotency-key': `${run.id}-0` });
    const events = request!.body.trim().split('\n').map((line) => JSON.parse(line));
    expect(events).toHaveLength(7);
    expect(Object.keys(events[0])).toEqual(['uuid', 'distinct_id', 'timestamp', 'event', 'properties']);
  });

  it('sends PostHog\'s /batch/ body, which another project of this platform takes as it is, once', async () => {
    const target = await seedTenant(inject('databaseUrl'), 'exports-http-target');
    const created = await createExport(stack, owner, { destination: { type: 'HTTP', config: { url: `${stack.ingestUrl}/batch/`, token: target.project_api_key, body_format: 'PostHogBatch' } } });
    await backfill(stack, owner, created.id, '2026-01-05T00:00:00Z', '2026-01-08T00:00:00Z');
    expect((await runsOf(stack, owner, created.id)).map((run) => run.status)).toEqual(['Completed', 'Completed', 'Completed']);
    const copied = async () => byUuid(await storedEvents(inject('databaseUrl'), target.environment_id));
    const first = await copied();
    // The owner's events of the range, each under its own uuid, and no other.
    const source = byUuid((await storedEvents(inject('databaseUrl'), owner.environment_id)).filter((event) => first.some((copy) => copy.uuid === event.uuid)));
    expect(first).toEqual(source);
    expect(first.map((event) => event.event).sort()).toEqual(SEED_EVENTS.filter((event) => event.timestamp < '2026-01-08').map((event) => event.event).sort());
    // Sent again (a retry of the whole range), nothing is stored twice: the receiver knows each event by its uuid.
    await backfill(stack, owner, created.id, '2026-01-05T00:00:00Z', '2026-01-08T00:00:00Z');
    expect(await copied()).toEqual(source);
  });

  it('tries a chunk again on 5xx, and a run that fails resumes at the first chunk not accepted', async () => {
    const big = await seedTenant(inject('databaseUrl'), 'exports-http-big');
    const events = Array.from({ length: 12_000 }, (_, index) => ({ event: 'tick', distinct_id: `user-${index % 20}`, timestamp: new Date(Date.UTC(2026, 0, 5, 1, 0, 0, index)).toISOString(), properties: { index } }));
    for (let offset = 0; offset < events.length; offset += 2000) await ingest(stack, big, events.slice(offset, offset + 2000));
    await ingestedAsTheyHappened(inject('databaseUrl'), big.environment_id);
    receiver.received.length = 0;
    // The second chunk is refused three times in a row (the tries of one attempt), then taken.
    let refusals = 0;
    answer = (accepted) => (accepted === 1 && refusals++ < 3 ? 503 : 200);
    const created = await createExport(stack, big, { destination: httpDestination() });
    const response = await api(stack.url, 'POST', exportsPath(big, `${created.id}/backfills`), { key: big.personal_api_key, body: { start_at: '2026-01-05T00:00:00Z', end_at: '2026-01-06T00:00:00Z' } });
    expect(response.status).toBe(201);
    await drainExports(stack, big);
    const [failed] = await runsOf(stack, big, created.id);
    expect(failed).toMatchObject({ status: 'FailedRetryable', attempts: 1, cursor: { chunks: 1, records: 5000 } });
    expect(failed.latest_error).toMatch(/RetryableResponseError \(status: 503\)/);
    // Tried again a second later (BATCH_EXPORT_RETRY_DELAY_SECONDS=1).
    await expect
      .poll(async () => {
        await drainExports(stack, big);
        return (await runsOf(stack, big, created.id))[0].status;
      }, { timeout: 20_000 })
      .toBe('Completed');
    answer = () => 200;
    const [run] = await runsOf(stack, big, created.id);
    expect(run).toMatchObject({ status: 'Completed', records_completed: 12_000, attempts: 2, cursor: { chunks: 3, records: 12_000 } });
    expect(receiver.received.map((request) => request.headers['idempotency-key'])).toEqual([0, 1, 2].map((chunk) => `${run.id}-${chunk}`));
    const indexes = receiver.received.flatMap((request) => request.body.trim().split('\n').map((line) => JSON.parse(line).properties.index as number));
    expect(indexes.sort((a, b) => a - b)).toEqual(Array.from({ length: 12_000 }, (_, index) => index));
  });

  it('pausing lets the run in progress finish', async () => {
    receiver.received.length = 0;
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let reached = false;
    answer = async () => {
      reached = true;
      await held;
      return 200;
    };
    const created = await createExport(stack, owner, { destination: httpDestination() });
    const started = await api(stack.url, 'POST', exportsPath(owner, `${created.id}/backfills`), { key: owner.personal_api_key, body: { start_at: '2026-01-05T00:00:00Z', end_at: '2026-01-06T00:00:00Z' } });
    expect(started.status).toBe(201);
    await expect.poll(() => reached, { timeout: 10_000 }).toBe(true);
    expect((await api(stack.url, 'POST', exportsPath(owner, `${created.id}/pause`), { key: owner.personal_api_key })).body).toEqual({ paused: true });
    release();
    answer = () => 200;
    await expect.poll(async () => (await runsOf(stack, owner, created.id))[0].status, { timeout: 10_000 }).toBe('Completed');
    expect((await runsOf(stack, owner, created.id))[0].records_completed).toBe(7);
    expect(receiver.received).toHaveLength(1);
  });

  it('fails at once on a 4xx, with its status and never its body', async () => {
    receiver.received.length = 0;
    answer = () => 400;
    const created = await createExport(stack, owner, { destination: httpDestination() });
    await backfill(stack, owner, created.id, '2026-01-05T00:00:00Z', '2026-01-06T00:00:00Z');
    answer = () => 200;
    const [run] = await runsOf(stack, owner, created.id);
    expect(run).toMatchObject({ status: 'Failed', attempts: 1 });
    expect(run.latest_error).toBe('NonRetryableResponseError (status: 400): The destination answered 400 Bad Request.');
  });
});
