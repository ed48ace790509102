import type { ServerResponse } from 'node:http';
import { UNAVAILABLE_RETRY_SECONDS } from './errors.js';

/**
 * What a process's health check found: whether it can do its own work now (what `/healthz`
 * answers, and what a load balancer should check), and whether each part it needs or routes to
 * is up (what `/healthz/detail` lists, for monitoring).
 */
export interface Health {
  serving: boolean;
  parts: Record<string, boolean>;
}

export type HealthCheck = () => Promise<Health>;

export const HEALTH_PATH = '/healthz';
export const HEALTH_DETAIL_PATH = '/healthz/detail';

/** How long one part may take to answer before it counts as down: a hung dependency must not hang the check. */
const PART_BOUND_MS = 2000;

export function isHealthPath(path: string): boolean {
  return path === HEALTH_PATH || path === HEALTH_DETAIL_PATH;
}

/**
 * `/healthz`: 200 `{"status":"ok"}` while the process can serve, else 503 naming the parts that
 * are down. `/healthz/detail`: every part, 200 only while all are up (`degraded` while the
 * process serves without some of them, `unavailable` when it cannot).
 */
export async function writeHealth(response: ServerResponse, path: string, check: HealthCheck): Promise<void> {
  const { serving, parts } = await check();
  const down = Object.keys(parts).filter((name) => !parts[name]);
  // A 503 says when to look again, as every other 503 of the platform does.
  const headers = (ok: boolean) => ({ 'content-type': 'application/json', 'cache-control': 'no-store', ...(ok ? {} : { 'retry-after': String(UNAVAILABLE_RETRY_SECONDS) }) });
  if (path === HEALTH_DETAIL_PATH) {
    const status = down.length === 0 ? 'ok' : serving ? 'degraded' : 'unavailable';
    const states = Object.fromEntries(Object.entries(parts).map(([name, up]) => [name, up ? 'up' : 'down']));
    response.writeHead(down.length === 0 ? 200 : 503, headers(down.length === 0)).end(JSON.stringify({ status, parts: states }));
    return;
  }
  response.writeHead(serving ? 200 : 503, headers(serving)).end(JSON.stringify(serving ? { status: 'ok' } : { status: 'unavailable', down }));
}

/** Whether `probe` resolves within the bound; a rejection or a probe that hangs counts as down. */
export function partUp(probe: () => Promise<unknown>): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), PART_BOUND_MS)));
  const answered = Promise.resolve()
    .then(probe)
    .then(
      () => true,
      () => false,
    );
  return Promise.race([answered, bound]).finally(() => clearTimeout(timer));
}

/** Whether another process's `/healthz` (at `url`) answers 200 within the bound. */
export function answersHealthy(url: URL): Promise<boolean> {
  return fetch(url, { signal: AbortSignal.timeout(PART_BOUND_MS) }).then(
    (response) => {
      void response.body?.cancel();
      return response.ok;
    },
    () => false,
  );
}

/** A process's own health: it serves while every part it needs is up. */
export async function ownHealth(probes: Record<string, () => Promise<boolean>>): Promise<Health> {
  const names = Object.keys(probes);
  const states = await Promise.all(names.map((name) => probes[name]!()));
  const parts = Object.fromEntries(names.map((name, index) => [name, states[index]!]));
  return { serving: states.every(Boolean), parts };
}

/**
 * Another process's health, from its `/healthz/detail` at `base`'s origin: it serves unless it
 * says `unavailable` or does not answer in time (then no part of it is known).
 */
export async function peerHealth(base: string): Promise<Health> {
  try {
    const response = await fetch(new URL(HEALTH_DETAIL_PATH, base), { signal: AbortSignal.timeout(PART_BOUND_MS) });
    const body = (await response.json()) as { status?: string; parts?: Record<string, string> };
    const parts = Object.fromEntries(Object.entries(body.parts ?? {}).map(([name, state]) => [name, state === 'up']));
    return { serving: body.status === 'ok' || body.status === 'degraded', parts };
  } catch {
    return { serving: false, parts: {} };
  }
}
