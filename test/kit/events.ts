/** An event as PostHog's export and SDKs write it. */
export interface ExportedEvent {
  uuid?: string;
  event: string;
  distinct_id: string;
  timestamp: string;
  properties: Record<string, unknown>;
}

const DAY_MS = 86_400_000;
const PAGES = ['/', '/pricing', '/docs', '/blog/launch', '/signup', '/login', '/settings', '/billing'];
const BROWSERS = ['Chrome', 'Firefox', 'Safari', 'Edge'];
const SYSTEMS = ['Mac OS X', 'Windows', 'Linux', 'iOS', 'Android'];
const EVENTS = ['$pageview', '$pageview', '$pageview', '$autocapture', 'signed_up', 'invited_teammate', 'purchase', '$pageleave'];

/** mulberry32: the same seed, the same events, on every machine. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A UUIDv7 (RFC 9562) for an instant: what PostHog's SDKs and capture give events, time-ordered. */
function uuidV7(time: number, next: () => number): string {
  const random = Array.from({ length: 20 }, () => Math.floor(next() * 16).toString(16)).join('');
  const hex = time.toString(16).padStart(12, '0') + random;
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7${hex.slice(13, 16)}-${((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const USER_AGENT = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

/** What posthog-js attaches to every event of a browser session (about 1.3 KB of JSON). */
function browserProperties(next: () => number, user: number, index: number, time: number, page: string, company: string): Record<string, unknown> {
  const session = `0190${(user * 7919 + Math.floor(index / 50)).toString(16).padStart(8, '0')}-0000-7000-8000-${user.toString(16).padStart(12, '0')}`;
  return {
    $os: SYSTEMS[Math.floor(next() * SYSTEMS.length)],
    $os_version: '10.15.7',
    $browser: BROWSERS[Math.floor(next() * BROWSERS.length)],
    $browser_version: 120,
    $device_type: next() < 0.7 ? 'Desktop' : 'Mobile',
    $raw_user_agent: USER_AGENT,
    $browser_language: 'en-US',
    $browser_language_prefix: 'en',
    $current_url: `https://app.example.com${page}`,
    $host: 'app.example.com',
    $pathname: page,
    $screen_height: 1117,
    $screen_width: 1728,
    $viewport_height: 1000,
    $viewport_width: 1728,
    $lib: 'web',
    $lib_version: '1.200.0',
    $insert_id: Math.floor(next() * 1e12).toString(36),
    $time: time / 1000,
    $device_id: `0190a000-0000-7000-8000-${user.toString(16).padStart(12, '0')}`,
    $user_id: `user-${user}`,
    $is_identified: true,
    $initial_person_info: { r: '$direct', u: `https://app.example.com/?utm_source=newsletter` },
    $referrer: next() < 0.5 ? '$direct' : 'https://www.google.com/',
    $referring_domain: '$direct',
    $session_id: session,
    $window_id: session,
    $pageview_id: uuidV7(time, next),
    $session_entry_url: 'https://app.example.com/',
    $session_entry_host: 'app.example.com',
    $session_entry_pathname: '/',
    $session_entry_referrer: '$direct',
    $session_entry_referring_domain: '$direct',
    $configured_session_timeout_ms: 1_800_000,
    $replay_sample_rate: null,
    $recording_status: 'active',
    $active_feature_flags: ['new-onboarding', 'billing-v2'],
    '$feature/new-onboarding': true,
    '$feature/billing-v2': 'test',
    $process_person_profile: true,
    $groups: { company },
  };
}

export interface GeneratorOptions {
  seed?: number;
  /** Distinct users (default 20,000). */
  users?: number;
  /** The newest event's age (default 3 days: old enough for a historical import). */
  newestAgeMs?: number;
  /** The span from the oldest event to the newest (default 365 days). */
  spanMs?: number;
  now?: number;
}

/**
 * `count` events shaped like a PostHog export, oldest first: page views and custom events with the
 * properties posthog-js sends (about 1.5 KB each), an `$identify` (with `$set` and
 * `$anon_distinct_id`) for about one in fifty, a company `$groupidentify` for about one in two
 * hundred, each with a time-ordered uuid (v7) as PostHog gives them.
 */
export function* generateEvents(count: number, options: GeneratorOptions = {}): Generator<ExportedEvent> {
  const next = random(options.seed ?? 1);
  const users = options.users ?? 20_000;
  const newest = (options.now ?? Date.now()) - (options.newestAgeMs ?? 3 * DAY_MS);
  const span = options.spanMs ?? 365 * DAY_MS;
  for (let index = 0; index < count; index++) {
    const user = Math.floor(next() * users);
    const company = `company-${user % 500}`;
    const time = newest - span + Math.floor((span * index) / Math.max(1, count));
    const timestamp = new Date(time).toISOString();
    const roll = next();
    const base = { uuid: uuidV7(time, next), distinct_id: `user-${user}`, timestamp };
    if (roll < 0.02) {
      yield { ...base, event: '$identify', properties: { $anon_distinct_id: `anon-${user}`, $set: { email: `user-${user}@example.com`, plan: next() < 0.3 ? 'pro' : 'free' }, $set_once: { first_seen_via: 'import' }, $lib: 'posthog-node' } };
    } else if (roll < 0.025) {
      yield { ...base, event: '$groupidentify', properties: { $group_type: 'company', $group_key: company, $group_set: { name: `Company ${user % 500}`, seats: 1 + (user % 50) }, $lib: 'posthog-node' } };
    } else {
      const page = PAGES[Math.floor(next() * PAGES.length)]!;
      yield { ...base, event: EVENTS[Math.floor(next() * EVENTS.length)]!, properties: browserProperties(next, user, index, time, page, company) };
    }
  }
}
