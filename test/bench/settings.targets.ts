import { isDeepStrictEqual } from 'node:util';
import type { LoadTarget } from './load.runner.js';
import type { Bootstrapped } from './platform.fixture.js';
import { CYCLED, cycledSettingsAt, HISTORY_LENGTH, instantAfter, PROJECT_COUNT, type SeededData } from './settings.seed.js';

/** A measured request and the check its first answer must pass before any load. */
export interface BenchCase {
  target: LoadTarget;
  /** Throws, naming what differs, when the parsed answer is wrong. */
  check(answer: unknown): void;
  /** How long one request takes once warm: the median of `pinCheckedAnswers`' timed requests. */
  singleMs?: number;
}

/** Where in the history each settings_as_of case asks, as the number of changes made by then. */
const POSITIONS = [
  { name: 'oldest', position: 1 },
  { name: 'middle', position: HISTORY_LENGTH / 2 },
  { name: 'newest', position: HISTORY_LENGTH - 100 },
];
const SEARCH = 'checkout';
const PAGE_SIZE = 100;

/**
 * More `*` keys of the bootstrapped user, made through REST, one per connection: concurrent
 * requests then come from different clients, as when several members use the organization, and
 * carry different actors (see `LoadTarget.variant`).
 */
export async function createKeys(platformUrl: string, account: Bootstrapped, count: number): Promise<string[]> {
  const keys = [account.personal_api_key];
  for (let index = 1; index < count; index += 1) {
    const response = await fetch(`${platformUrl}/api/personal_api_keys/`, {
      method: 'POST',
      headers: { ...authorization(account.personal_api_key), 'content-type': 'application/json' },
      body: JSON.stringify({ label: `bench key ${index}`, scopes: ['*'] }),
    });
    const text = await response.text();
    if (response.status !== 201) throw new Error(`creating a key answered ${response.status}: ${text.slice(0, 500)}`);
    keys.push((JSON.parse(text) as { value: string }).value);
  }
  return keys;
}

/** settings_as_of at the oldest, middle and newest instants; each replays the changes made after it. */
export async function settingsCases(platformUrl: string, account: Bootstrapped, keys: string[], seeded: SeededData): Promise<BenchCase[]> {
  const now = await settingsAsOf(platformUrl, account, seeded, HISTORY_LENGTH);
  const record = await get(platformUrl, account, `/api/projects/${account.project_id}/environments/${account.environment_id}/`);
  const differing = Object.keys(now).filter((key) => key in record && !isDeepStrictEqual(now[key], record[key]));
  const cycledMissing = CYCLED.filter(({ field }) => !(field in record)).map(({ field }) => field);
  if (differing.length > 0 || cycledMissing.length > 0) {
    throw new Error(`settings_as_of after the last change differs from the environment's settings in ${[...differing, ...cycledMissing].join(', ')}`);
  }
  const expected = (position: number) => ({ ...now, ...cycledSettingsAt(position) });
  expectEqual(`settings_as_of before the first change`, await settingsAsOf(platformUrl, account, seeded, 0), expected(0));
  return POSITIONS.map(({ name, position }) => ({
    target: {
      key: `as_of ${name}`,
      label: `settings_as_of, ${name} (replays ${HISTORY_LENGTH - position})`,
      url: `${platformUrl}${settingsPath(account, seeded, position)}`,
      method: 'GET',
      headers: authorization(account.personal_api_key),
      // Another instant between the same two changes, and each connection a client with its own key.
      variant: (index, connections) => ({
        path: settingsPath(account, seeded, position, index),
        headers: authorization(keys[index % connections]!),
      }),
    },
    check: (answer) => expectEqual(`settings_as_of at position ${position}`, answer, expected(position)),
  }));
}

/** The organization's first page of projects, and of those whose name holds SEARCH. */
export function projectListCases(platformUrl: string, account: Bootstrapped, keys: string[], seeded: SeededData): BenchCase[] {
  const path = `/api/organizations/${account.organization_id}/projects/`;
  const matching = seeded.projects.filter((project) => project.name.toLowerCase().includes(SEARCH));
  return [
    { key: 'list', label: `projects, first page of ${PROJECT_COUNT}`, query: '', projects: seeded.projects },
    { key: 'search', label: `projects, ?search=${SEARCH} (${matching.length} match)`, query: `?search=${SEARCH}`, projects: matching },
  ].map(({ key, label, query, projects }) => ({
    target: {
      key,
      label,
      url: `${platformUrl}${path}${query}`,
      method: 'GET',
      headers: authorization(account.personal_api_key),
      variant: (index, connections) => ({ path: `${path}${query}`, headers: authorization(keys[index % connections]!) }),
    },
    check: (answer) => checkPage(label, answer, projects),
  }));
}

/** Requests timed one after another to size a case's runs (see `singleMs`). */
export const TIMED_REQUESTS = 10;

/**
 * One answer per case before any load: a benchmark of wrong answers measures nothing. Under load,
 * each answer must then be byte for byte the one checked (nothing changes during the runs); the
 * TIMED_REQUESTS requests that follow, timed, check that already. Their median sizes the runs: the
 * first of them meets the other worker cold and took several times a warm request (23 ms against
 * 2.8 on 2026-11-28), which made a run of "five seconds" last one.
 */
export async function pinCheckedAnswers(cases: BenchCase[]): Promise<void> {
  for (const benchCase of cases) {
    const { target, check } = benchCase;
    const text = await answer(target);
    check(JSON.parse(text));
    const timings: number[] = [];
    for (let index = 0; index < TIMED_REQUESTS; index += 1) {
      const started = performance.now();
      if ((await answer(target)) !== text) throw new Error(`${target.label} answered differently on its request ${index + 2}`);
      timings.push(performance.now() - started);
    }
    benchCase.singleMs = timings.sort((a, b) => a - b)[Math.floor(TIMED_REQUESTS / 2)];
    target.verifyBody = (body) => body === text;
  }
}

async function answer(target: LoadTarget): Promise<string> {
  const response = await fetch(target.url, { headers: target.headers });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${target.label} answered ${response.status}: ${text.slice(0, 500)}`);
  return text;
}

function checkPage(label: string, answer: unknown, projects: SeededData['projects']): void {
  const page = answer as { count?: number; next?: string | null; results?: Array<{ id: number; name: string; api_token: string }> };
  const expected = projects.slice(0, PAGE_SIZE);
  expectEqual(`${label}: count`, page.count, projects.length);
  const next = page.next ? new URL(page.next).searchParams : null;
  const nextPage = projects.length > PAGE_SIZE ? { limit: String(PAGE_SIZE), offset: String(PAGE_SIZE) } : null;
  expectEqual(`${label}: next`, next && { limit: next.get('limit'), offset: next.get('offset') }, nextPage);
  expectEqual(
    `${label}: results`,
    page.results?.map(({ id, name, api_token }) => ({ id, name, api_token })),
    expected,
  );
}

async function settingsAsOf(platformUrl: string, account: Bootstrapped, seeded: SeededData, position: number): Promise<Record<string, unknown>> {
  return get(platformUrl, account, settingsPath(account, seeded, position));
}

function settingsPath(account: Bootstrapped, seeded: SeededData, position: number, variant?: number): string {
  const at = encodeURIComponent(instantAfter(seeded.historyStart, position, variant));
  return `/api/projects/${account.project_id}/environments/${account.environment_id}/settings_as_of/?at=${at}`;
}

async function get(platformUrl: string, account: Bootstrapped, path: string): Promise<Record<string, unknown>> {
  const text = await answer({ key: path, label: `GET ${path}`, url: `${platformUrl}${path}`, method: 'GET', headers: authorization(account.personal_api_key) });
  return JSON.parse(text) as Record<string, unknown>;
}

function authorization(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` };
}

function expectEqual(what: string, actual: unknown, expected: unknown): void {
  if (!isDeepStrictEqual(actual, expected)) {
    throw new Error(`${what} is wrong:\n  got      ${JSON.stringify(actual)?.slice(0, 600)}\n  expected ${JSON.stringify(expected)?.slice(0, 600)}`);
  }
}
