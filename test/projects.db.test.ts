import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { api, gql } from './kit/http.js';
import { addMember, createKey, seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

let stack: Stack;
let owner: Tenant;
let outsider: Tenant;
const projects = (tenant: Tenant) => `/api/organizations/${tenant.organization_id}/projects/`;

async function logged(environmentId: number): Promise<{ scope: string; activity: string; changes: { field: string; before: unknown; after: unknown }[] }[]> {
  const client = new pg.Client({ connectionString: inject('databaseUrl') });
  await client.connect();
  const { rows } = await client.query('select scope, activity, changes from projects.activity_log where environment_id = $1 order by created_at', [environmentId]);
  await client.end();
  return rows;
}

beforeAll(async () => {
  stack = await startStack({ databaseUrl: inject('databaseUrl') });
  [owner, outsider] = await Promise.all([seedTenant(inject('databaseUrl'), 'projects'), seedTenant(inject('databaseUrl'), 'outsider')]);
});
afterAll(() => stack?.stop());

describe('projects over REST', () => {
  it('creates a project with its first environment, defaults and a fresh token (201)', async () => {
    const created = await api(stack.url, 'POST', projects(owner), { key: owner.personal_api_key, body: { name: 'Mobile app', timezone: 'Europe/Paris' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      name: 'Mobile app',
      organization: owner.organization_id,
      timezone: 'Europe/Paris',
      data_attributes: ['data-attr'],
      capture_console_log_opt_in: true,
      anonymize_ips: false,
      session_recording_sample_rate: null,
      effective_membership_level: 15,
      user_access_level: 'admin',
      secret_api_token: null,
      // Nothing has been ingested into a new project, so it has no events and no group types yet.
      ingested_event: false,
      has_group_types: false,
      group_types: [],
      live_events_token: null,
    });
    expect(created.body.api_token).toMatch(/^phc_[0-9A-Za-z]+$/);
    expect(created.body).not.toHaveProperty('base_currency');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const environment = await api(stack.url, 'GET', `/api/environments/${created.body.id}/`, { key: owner.personal_api_key });
    expect(environment.status).toBe(200);
    expect(environment.body).toMatchObject({ id: created.body.id, project_id: created.body.id, base_currency: 'USD', session_recording_retention_period: '30d', api_token: created.body.api_token });
    expect((await logged(created.body.id)).map((entry) => `${entry.scope}:${entry.activity}`)).toEqual(['Project:created']);
  });

  it('lists the organization\'s projects, paginated, with a case-insensitive search', async () => {
    const own = await seedTenant(inject('databaseUrl'), 'listing');
    for (const name of ['Alpha web', 'Beta WEB', 'Gamma']) {
      await api(stack.url, 'POST', projects(own), { key: own.personal_api_key, body: { name } });
    }
    const all = await api(stack.url, 'GET', `${projects(own)}?limit=2`, { key: own.personal_api_key });
    expect(all.body.count).toBe(4);
    expect(all.body.results.map((project: { name: string }) => project.name)).toEqual(['Gamma', 'Beta WEB']);
    expect(all.body.next).toBe(`${stack.url}${projects(own)}?limit=2&offset=2`);
    // PostHog lists projects in their basic form; the whole record is the project's own path.
    expect(Object.keys(all.body.results[0]).sort()).toEqual(
      ['access_control', 'api_token', 'completed_snippet_onboarding', 'has_completed_onboarding_for', 'id', 'ingested_event', 'is_demo', 'name', 'organization', 'timezone', 'uuid'],
    );
    expect(all.body.results[0].api_token).toMatch(/^phc_/);
    const search = await api(stack.url, 'GET', `${projects(own)}?search=web`, { key: own.personal_api_key });
    expect(search.body.results.map((project: { name: string }) => project.name)).toEqual(['Beta WEB', 'Alpha web']);
    expect((await api(stack.url, 'GET', `${projects(own)}?search=%25`, { key: own.personal_api_key })).body.count).toBe(0);
    // The last page, and a page past the end: the count is the whole list's either way.
    const last = await api(stack.url, 'GET', `${projects(own)}?limit=2&offset=3`, { key: own.personal_api_key });
    expect([last.body.count, last.body.results.length, last.body.next]).toEqual([4, 1, null]);
    const past = await api(stack.url, 'GET', `${projects(own)}?limit=2&offset=10`, { key: own.personal_api_key });
    expect([past.body.count, past.body.results]).toEqual([4, []]);
    const searchedPast = await api(stack.url, 'GET', `${projects(own)}?search=web&offset=5`, { key: own.personal_api_key });
    expect([searchedPast.body.count, searchedPast.body.results]).toEqual([2, []]);
  });

  it('searches as ILIKE on the name does, beyond ASCII, after a rename, and with LIKE\'s wildcards taken literally', async () => {
    const own = await seedTenant(inject('databaseUrl'), 'folding');
    const names = ['Ärger Tracker', 'ärger app', 'ÉCOLE web', 'école mobile', '100%_done', '100 done', 'Back\\slash'];
    const ids: number[] = [];
    for (const name of names) {
      ids.push((await api(stack.url, 'POST', projects(own), { key: own.personal_api_key, body: { name } })).body.id);
    }
    await api(stack.url, 'PATCH', `${projects(own)}${ids[1]}/`, { key: own.personal_api_key, body: { name: 'ÄRGER renamed' } });
    const client = new pg.Client({ connectionString: inject('databaseUrl') });
    await client.connect();
    try {
      for (const search of ['ärger', 'ÄRGER', 'École', 'renamed', '%_', '0 d', '\\s', 'tracker app']) {
        const pattern = `%${search.replace(/[\\%_]/g, (char) => `\\${char}`)}%`;
        const { rows } = await client.query<{ name: string }>(
          'select name from projects.projects where organization_id = $1 and deleted_at is null and name ilike $2 order by id desc',
          [own.organization_id, pattern],
        );
        const found = await api(stack.url, 'GET', `${projects(own)}?search=${encodeURIComponent(search)}`, { key: own.personal_api_key });
        expect([search, found.body.results.map((project: { name: string }) => project.name)]).toEqual([search, rows.map(({ name }) => name)]);
        expect(found.body.count).toBe(rows.length);
      }
    } finally {
      await client.end();
    }
    // Not vacuous: the folding found names whose case differs, and the wildcards only themselves.
    const folded = await api(stack.url, 'GET', `${projects(own)}?search=ÄRGER`, { key: own.personal_api_key });
    expect(folded.body.results.map((project: { name: string }) => project.name)).toEqual(['ÄRGER renamed', 'Ärger Tracker']);
    const literal = await api(stack.url, 'GET', `${projects(own)}?search=${encodeURIComponent('%_')}`, { key: own.personal_api_key });
    expect(literal.body.results.map((project: { name: string }) => project.name)).toEqual(['100%_done']);
  });

  it('changes settings with project:read, validating each and logging before and after', async () => {
    const reader = await createKey(stack.url, owner.personal_api_key, ['project:read']);
    const path = `${projects(owner)}${owner.project_id}/`;
    const patched = await api(stack.url, 'PATCH', path, { key: reader, body: { session_recording_sample_rate: '0.5', week_start_day: 1, app_urls: ['https://example.com'] } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ session_recording_sample_rate: '0.50', week_start_day: 1, app_urls: ['https://example.com'] });
    expect((await api(stack.url, 'GET', path, { key: reader })).body.session_recording_sample_rate).toBe('0.50');
    const entries = await logged(owner.environment_id);
    expect(entries.at(-1)).toEqual({
      scope: 'Project',
      activity: 'updated',
      changes: [
        { type: 'Project', action: 'changed', field: 'app_urls', before: [], after: ['https://example.com'] },
        { type: 'Project', action: 'changed', field: 'session_recording_sample_rate', before: null, after: '0.50' },
        { type: 'Project', action: 'changed', field: 'week_start_day', before: null, after: 1 },
      ],
    });
  });

  it.each([
    [{ timezone: 'Mars/Olympus' }, 'timezone', 'invalid_choice'],
    [{ session_recording_sample_rate: '1.5' }, 'session_recording_sample_rate', 'invalid_input'],
    [{ session_recording_minimum_duration_milliseconds: 40000 }, 'session_recording_minimum_duration_milliseconds', 'max_value'],
    [{ week_start_day: 3 }, 'week_start_day', 'invalid_choice'],
    [{ business_model: 'b2x' }, 'business_model', 'invalid_choice'],
    [{ correlation_config: { big: 'x'.repeat(70_000) } }, 'correlation_config', 'invalid_input'],
    [{ anonymize_ips: null }, 'anonymize_ips', 'null'],
    [{ name: '' }, 'name', 'blank'],
  ])('answers 400 for %j with attr %s and changes nothing', async (body, attr, code) => {
    const path = `${projects(owner)}${owner.project_id}/`;
    const before = (await api(stack.url, 'GET', path, { key: owner.personal_api_key })).body;
    const response = await api(stack.url, 'PATCH', path, { key: owner.personal_api_key, body: { app_urls: ['https://changed.example'], ...body } });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ type: 'validation_error', attr, code });
    expect((await api(stack.url, 'GET', path, { key: owner.personal_api_key })).body).toEqual(before);
  });

  it('needs project:write and an admin to rename', async () => {
    const path = `${projects(owner)}${owner.project_id}/`;
    const reader = await createKey(stack.url, owner.personal_api_key, ['project:read']);
    const denied = await api(stack.url, 'PATCH', path, { key: reader, body: { name: 'Renamed' } });
    expect(denied.status).toBe(403);
    expect(denied.body.detail).toBe("API key missing required scope 'project:write'");

    const member = await seedTenant(inject('databaseUrl'), 'member');
    await addMember(inject('databaseUrl'), stack.url, member.personal_api_key, owner.organization_id, 1);
    const asMember = await api(stack.url, 'PATCH', path, { key: member.personal_api_key, body: { name: 'Renamed' } });
    expect(asMember.status).toBe(403);
    expect((await api(stack.url, 'PATCH', path, { key: member.personal_api_key, body: { timezone: 'Asia/Tokyo' } })).status).toBe(200);
    expect((await api(stack.url, 'POST', projects(owner), { key: member.personal_api_key, body: { name: 'By a member' } })).status).toBe(403);

    const renamed = await api(stack.url, 'PATCH', path, { key: owner.personal_api_key, body: { name: 'Renamed' } });
    expect(renamed.body.name).toBe('Renamed');
    const nulled = await api(stack.url, 'PATCH', path, { key: owner.personal_api_key, body: { name: null } });
    expect(nulled.status).toBe(400);
    expect(nulled.body).toMatchObject({ code: 'null', attr: 'name', detail: 'This field may not be null.' });
  });
});

describe('environments over REST', () => {
  it('reads and changes environment-only settings', async () => {
    const path = `/api/environments/${owner.environment_id}/`;
    const patched = await api(stack.url, 'PATCH', path, { key: owner.personal_api_key, body: { base_currency: 'eur', cookieless_server_hash_mode: 2, experiment_recalculation_time: '04:30:00' } });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ base_currency: 'EUR', cookieless_server_hash_mode: 2, experiment_recalculation_time: '04:30:00' });
    const bad = await api(stack.url, 'PATCH', path, { key: owner.personal_api_key, body: { session_recording_retention_period: '2y' } });
    expect(bad.body).toMatchObject({ attr: 'session_recording_retention_period', code: 'invalid_choice', detail: '"2y" is not a valid choice.' });
    expect((await logged(owner.environment_id)).at(-1)!.scope).toBe('Team');
  });
});

describe('projects and environments over GraphQL', () => {
  it('lists, reads and changes the same records', async () => {
    const list = await gql(stack.graphqlUrl, 'query ($o: ID!) { projects(organization_id: $o) { count results { id name timezone } } }', { o: owner.organization_id }, owner.personal_api_key);
    expect(list.data.projects.results.map((project: { id: number }) => project.id)).toContain(owner.project_id);
    const changed = await gql(stack.graphqlUrl, 'mutation ($id: Int!) { update_environment(id: $id, heatmaps_opt_in: true) { heatmaps_opt_in project { id name } } }', { id: owner.environment_id }, owner.personal_api_key);
    expect(changed.data.update_environment).toMatchObject({ heatmaps_opt_in: true, project: { id: owner.project_id } });
    const invalid = await gql(stack.graphqlUrl, 'mutation ($id: Int!) { update_environment(id: $id, timezone: "Nowhere/Land") { id } }', { id: owner.environment_id }, owner.personal_api_key);
    expect(invalid.errors?.[0]?.extensions).toMatchObject({ code: 'invalid_choice', attr: 'timezone', status: 400 });
  });
});

describe('tenant isolation: projects and environments', () => {
  it("another organization's key sees and changes nothing", async () => {
    const key = outsider.personal_api_key;
    const before = (await api(stack.url, 'GET', `/api/environments/${owner.environment_id}/`, { key: owner.personal_api_key })).body;
    expect((await api(stack.url, 'GET', projects(owner), { key })).status).toBe(403);
    expect((await api(stack.url, 'POST', projects(owner), { key, body: { name: 'Intruder' } })).status).toBe(403);
    expect((await api(stack.url, 'GET', `${projects(owner)}${owner.project_id}/`, { key })).status).toBe(403);
    expect((await api(stack.url, 'PATCH', `${projects(owner)}${owner.project_id}/`, { key, body: { timezone: 'UTC' } })).status).toBe(403);
    expect((await api(stack.url, 'GET', `${projects(outsider)}${owner.project_id}/`, { key })).status).toBe(404);
    expect((await api(stack.url, 'GET', `/api/environments/${owner.environment_id}/`, { key })).status).toBe(403);
    expect((await api(stack.url, 'PATCH', `/api/environments/${owner.environment_id}/`, { key, body: { timezone: 'UTC' } })).status).toBe(403);
    // As PostHog answers: an environment that exists is 403 to outsiders, one that does not is 404.
    expect((await api(stack.url, 'GET', '/api/environments/2000000000/', { key })).status).toBe(404);
    const own = await api(stack.url, 'GET', projects(outsider), { key });
    expect(own.body.results.map((project: { id: number }) => project.id)).not.toContain(owner.project_id);
    expect((await api(stack.url, 'GET', `/api/environments/${owner.environment_id}/`, { key: owner.personal_api_key })).body).toEqual(before);
  });
});

describe('tokens', () => {
  it('reset_token issues a new phc_ token; the old one no longer finds the environment', async () => {
    const own = await seedTenant(inject('databaseUrl'), 'tokens');
    const path = `${projects(own)}${own.project_id}/reset_token/`;
    const reset = await api(stack.url, 'PATCH', path, { key: own.personal_api_key });
    expect(reset.status).toBe(200);
    expect(reset.body.api_token).toMatch(/^phc_/);
    expect(reset.body.api_token).not.toBe(own.project_api_key);
    const client = new pg.Client({ connectionString: inject('databaseUrl') });
    await client.connect();
    const { createHash } = await import('node:crypto');
    const hash = (token: string) => `sha256$${createHash('sha256').update(token).digest('hex')}`;
    const lookup = (token: string) => client.query('select id from projects.environments where api_token_hash = $1', [hash(token)]);
    expect((await lookup(own.project_api_key)).rowCount).toBe(0);
    expect((await lookup(reset.body.api_token)).rows).toEqual([{ id: own.environment_id }]);
    const { rows } = await client.query("select changes from projects.activity_log where environment_id = $1 and changes->0->>'field' = 'api_token'", [own.environment_id]);
    await client.end();
    expect(JSON.stringify(rows)).not.toContain(reset.body.api_token);
    expect(JSON.stringify(rows)).not.toContain(own.project_api_key);
  });

  it('rotate_secret_token keeps the previous secret as the backup until it is deleted', async () => {
    const own = await seedTenant(inject('databaseUrl'), 'secrets');
    const base = `/api/projects/${own.project_id}/environments/${own.environment_id}`;
    const first = (await api(stack.url, 'PATCH', `${base}/rotate_secret_token/`, { key: own.personal_api_key })).body;
    expect(first.secret_api_token).toMatch(/^phs_/);
    expect(first.secret_api_token_backup).toBeNull();
    const second = (await api(stack.url, 'PATCH', `${base}/rotate_secret_token`, { key: own.personal_api_key })).body;
    expect(second.secret_api_token_backup).toBe(first.secret_api_token);
    const cleared = await api(stack.url, 'PATCH', `${base}/delete_secret_token_backup/`, { key: own.personal_api_key });
    expect(cleared.body).toMatchObject({ secret_api_token: second.secret_api_token, secret_api_token_backup: null });
    expect((await api(stack.url, 'PATCH', `${base}/delete_secret_token_backup/`, { key: own.personal_api_key })).status).toBe(200);
    expect((await api(stack.url, 'PATCH', `/api/projects/${own.project_id + 100000}/environments/${own.environment_id}/reset_token/`, { key: own.personal_api_key })).status).toBe(404);
  });

  it('needs an admin with project:write, and another organization gets nothing', async () => {
    const path = `${projects(owner)}${owner.project_id}/reset_token/`;
    const reader = await createKey(stack.url, owner.personal_api_key, ['project:read']);
    expect((await api(stack.url, 'PATCH', path, { key: reader })).body.detail).toBe("API key missing required scope 'project:write'");
    const member = await seedTenant(inject('databaseUrl'), 'tokenmember');
    await addMember(inject('databaseUrl'), stack.url, member.personal_api_key, owner.organization_id, 1);
    expect((await api(stack.url, 'PATCH', path, { key: member.personal_api_key })).status).toBe(403);
    expect((await api(stack.url, 'PATCH', path, { key: outsider.personal_api_key })).status).toBe(403);
    expect((await api(stack.url, 'PATCH', `/api/projects/${owner.project_id}/environments/${owner.environment_id}/rotate_secret_token/`, { key: outsider.personal_api_key })).status).toBe(403);
  });
});

describe('activity', () => {
  it('lists who changed what, newest first, with activity_log:read', async () => {
    const own = await seedTenant(inject('databaseUrl'), 'activity');
    const path = `${projects(own)}${own.project_id}/`;
    await api(stack.url, 'PATCH', path, { key: own.personal_api_key, body: { timezone: 'Asia/Tokyo' } });
    await api(stack.url, 'PATCH', `${path}reset_token/`, { key: own.personal_api_key });
    const activity = await api(stack.url, 'GET', `${path}activity/?limit=1`, { key: own.personal_api_key });
    expect(activity.status).toBe(200);
    expect(activity.body).toMatchObject({ count: 2, total_count: 2 });
    const [latest] = activity.body.results;
    expect(latest).toMatchObject({ activity: 'updated', scope: 'Project', item_id: String(own.project_id), user: { email: own.email } });
    expect(latest.detail).toMatchObject({ id: String(own.project_id), merge: null, trigger: null, short_id: null, type: null });
    expect(latest.detail.changes.map((change: { field: string }) => change.field)).toEqual(['api_token']);
    expect(latest.detail.changes[0].after).toMatch(/^phc_\.\.\.[0-9A-Za-z]{4}$/);
    expect(activity.body.next).toBe(`${stack.url}${path}activity/?limit=1&offset=1`);
    // PostHog pages the log by number: the same entries, links by page, and "Invalid page." past the end.
    const second = await api(stack.url, 'GET', `${path}activity/?limit=1&page=2`, { key: own.personal_api_key });
    expect(second.body.results[0].detail.changes[0].field).toBe('timezone');
    expect(second.body).toMatchObject({ count: 2, next: null, previous: `${stack.url}${path}activity/?limit=1&page=1` });
    expect((await api(stack.url, 'GET', `${path}activity/?limit=1&page=1`, { key: own.personal_api_key })).body.next).toBe(`${stack.url}${path}activity/?limit=1&page=2`);
    const past = await api(stack.url, 'GET', `${path}activity/?limit=1&page=3`, { key: own.personal_api_key });
    expect(past.status).toBe(404);
    expect(past.body.detail).toBe('Invalid page.');

    const reader = await createKey(stack.url, own.personal_api_key, ['project:read']);
    expect((await api(stack.url, 'GET', `${path}activity/`, { key: reader })).body.detail).toBe("API key missing required scope 'activity_log:read'");
    expect((await api(stack.url, 'GET', `${projects(owner)}${owner.project_id}/activity/`, { key: own.personal_api_key })).status).toBe(403);
  });
});

describe('settings_as_of over REST', () => {
  it('answers the settings of an instant, and 400 on attr at for a missing or bad instant', async () => {
    const own = await seedTenant(inject('databaseUrl'), 'asof');
    const base = `/api/projects/${own.project_id}/environments/${own.environment_id}/settings_as_of/`;
    const before = new Date().toISOString();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await api(stack.url, 'PATCH', `/api/environments/${own.environment_id}/`, { key: own.personal_api_key, body: { timezone: 'Asia/Tokyo' } });
    const then = await api(stack.url, 'GET', `${base}?at=${encodeURIComponent(before)}&scope=timezone&scope=unknown_key`, { key: own.personal_api_key });
    expect(then.status).toBe(200);
    expect(then.body).toEqual({ timezone: 'UTC', unknown_key: null });
    const now = await api(stack.url, 'GET', `${base}?at=${encodeURIComponent(new Date().toISOString())}`, { key: own.personal_api_key });
    expect(now.body.timezone).toBe('Asia/Tokyo');
    expect(Object.keys(now.body)).toContain('base_currency');

    const missing = await api(stack.url, 'GET', base, { key: own.personal_api_key });
    expect(missing.status).toBe(400);
    expect(missing.body).toMatchObject({ type: 'validation_error', attr: 'at', code: 'required' });
    const bad = await api(stack.url, 'GET', `${base}?at=yesterday`, { key: own.personal_api_key });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ attr: 'at', code: 'invalid_input' });
    expect((await api(stack.url, 'GET', `${base}?at=${encodeURIComponent(before)}`, { key: outsider.personal_api_key })).status).toBe(403);
  });
});

describe('environment paths under both prefixes', () => {
  it('serves /api/projects/:project_id/environments/:id/ like /api/environments/:id/, and checks the project', async () => {
    const own = await seedTenant(inject('databaseUrl'), 'prefixes');
    const short = await api(stack.url, 'GET', `/api/environments/${own.environment_id}/`, { key: own.personal_api_key });
    const long = await api(stack.url, 'GET', `/api/projects/${own.project_id}/environments/${own.environment_id}`, { key: own.personal_api_key });
    expect(long.status).toBe(200);
    expect(long.body).toEqual(short.body);
    const patched = await api(stack.url, 'PATCH', `/api/projects/${own.project_id}/environments/${own.environment_id}/`, { key: own.personal_api_key, body: { surveys_opt_in: true } });
    expect(patched.body.surveys_opt_in).toBe(true);
    expect((await api(stack.url, 'GET', `/api/projects/${owner.project_id}/environments/${own.environment_id}/`, { key: own.personal_api_key })).status).toBe(404);
    // `project_id` is read from the long path only: elsewhere PostHog ignores it, in the query string or the body.
    for (const query of [`?project_id=${owner.project_id}`, '?project_id=abc']) {
      expect(await api(stack.url, 'GET', `/api/environments/${own.environment_id}/${query}`, { key: own.personal_api_key })).toMatchObject({ status: 200, body: { id: own.environment_id, surveys_opt_in: true } });
    }
    const withProjectId = await api(stack.url, 'PATCH', `/api/environments/${own.environment_id}/`, { key: own.personal_api_key, body: { project_id: 999_999, anonymize_ips: true } });
    expect(withProjectId).toMatchObject({ status: 200, body: { id: own.environment_id, anonymize_ips: true } });
    const overridden = await api(stack.url, 'GET', `/api/projects/${owner.project_id}/environments/${own.environment_id}/?project_id=${own.project_id}`, { key: own.personal_api_key });
    expect(overridden.status).toBe(404);
    const viaShort = await api(stack.url, 'PATCH', `/api/environments/${own.environment_id}/rotate_secret_token/`, { key: own.personal_api_key });
    expect(viaShort.body.secret_api_token).toMatch(/^phs_/);
    expect((await api(stack.url, 'PUT', `/api/projects/${own.project_id}/environments/${own.environment_id}/`, { key: own.personal_api_key })).headers.get('allow')).toBe('GET, PATCH, HEAD, OPTIONS');
  });
});

describe('product intents', () => {
  it('records intents and completed onboarding with project:read, on projects and environments', async () => {
    const own = await seedTenant(inject('databaseUrl'), 'intents');
    const reader = await createKey(stack.url, own.personal_api_key, ['project:read']);
    const path = `${projects(own)}${own.project_id}`;
    const added = await api(stack.url, 'PATCH', `${path}/add_product_intent/`, { key: reader, body: { product_type: 'session_replay', intent_context: 'onboarding' } });
    expect(added.status).toBe(200);
    expect(added.body.product_intents).toMatchObject([{ product_type: 'session_replay', contexts: { onboarding: 1 }, onboarding_completed_at: null }]);
    const completed = await api(stack.url, 'PATCH', `${path}/complete_product_onboarding/`, { key: reader, body: { product_type: 'session_replay' } });
    expect(completed.body.has_completed_onboarding_for).toEqual({ session_replay: true });
    expect(completed.body.product_intents[0].onboarding_completed_at).toMatch(/^\d{4}-/);
    const viaEnvironment = await api(stack.url, 'PATCH', `/api/projects/${own.project_id}/environments/${own.environment_id}/add_product_intent/`, { key: reader, body: { product_type: 'feature_flags' } });
    expect(viaEnvironment.body.product_intents.map((intent: { product_type: string }) => intent.product_type)).toEqual(['session_replay', 'feature_flags']);

    const missing = await api(stack.url, 'PATCH', `${path}/complete_product_onboarding/`, { key: reader, body: {} });
    expect(missing.body).toMatchObject({ attr: 'product_type', code: 'required' });
    const invalid = await api(stack.url, 'PATCH', `${path}/add_product_intent/`, { key: reader, body: { product_type: 'teleportation' } });
    expect(invalid.body).toMatchObject({ attr: 'product_type', code: 'invalid_choice' });
    expect((await api(stack.url, 'PATCH', `${path}/add_product_intent/`, { key: outsider.personal_api_key, body: { product_type: 'surveys' } })).status).toBe(403);
  });
});

describe('demo data and the conversations widget token', () => {
  it('says demo data is not being generated, to members of the project only', async () => {
    const path = `${projects(owner)}${owner.project_id}/is_generating_demo_data/`;
    expect((await api(stack.url, 'GET', path, { key: owner.personal_api_key })).body).toEqual({ is_generating_demo_data: false });
    expect((await api(stack.url, 'GET', `/api/environments/${owner.environment_id}/is_generating_demo_data`, { key: owner.personal_api_key })).body).toEqual({ is_generating_demo_data: false });
    expect((await api(stack.url, 'GET', path, { key: outsider.personal_api_key })).status).toBe(403);
  });

  it('generates a widget token into conversations_settings, masked in the activity log', async () => {
    const own = await seedTenant(inject('databaseUrl'), 'widget');
    await api(stack.url, 'PATCH', `/api/environments/${own.environment_id}/`, { key: own.personal_api_key, body: { conversations_settings: { greeting: 'hi' } } });
    const generated = await api(stack.url, 'POST', `${projects(own)}${own.project_id}/generate_conversations_public_token/`, { key: own.personal_api_key });
    expect(generated.status).toBe(200);
    const token = generated.body.conversations_settings.widget_public_token as string;
    expect(token).toMatch(/^[0-9A-Za-z]{40,}$/);
    expect(generated.body.conversations_settings.greeting).toBe('hi');
    expect(JSON.stringify(await logged(own.environment_id))).not.toContain(token);
    const member = await seedTenant(inject('databaseUrl'), 'widgetmember');
    await addMember(inject('databaseUrl'), stack.url, member.personal_api_key, own.organization_id, 1);
    expect((await api(stack.url, 'POST', `/api/environments/${own.environment_id}/generate_conversations_public_token/`, { key: member.personal_api_key })).status).toBe(403);
  });
});

describe('default evaluation tags', () => {
  it('adds (trimmed, lower-cased, at most 10), lists and deletes with 204', async () => {
    const own = await seedTenant(inject('databaseUrl'), 'tags');
    const path = `/api/projects/${own.project_id}/environments/${own.environment_id}/default_evaluation_tags/`;
    const first = await api(stack.url, 'POST', path, { key: own.personal_api_key, body: { tag_name: '  Production ' } });
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ name: 'production', created: true });
    expect((await api(stack.url, 'POST', path, { key: own.personal_api_key, body: { tag_name: 'PRODUCTION' } })).body).toMatchObject({ id: first.body.id, created: false });
    for (let i = 1; i < 10; i++) await api(stack.url, 'POST', path, { key: own.personal_api_key, body: { tag_name: `tag-${i}` } });
    const eleventh = await api(stack.url, 'POST', path, { key: own.personal_api_key, body: { tag_name: 'one-too-many' } });
    expect(eleventh.body).toMatchObject({ type: 'validation_error', attr: 'tag_name', detail: 'Maximum of 10 default evaluation tags allowed' });
    const listed = await api(stack.url, 'GET', path, { key: own.personal_api_key });
    expect(listed.body.enabled).toBe(false);
    expect(listed.body.default_evaluation_tags).toHaveLength(10);
    const deleted = await api(stack.url, 'DELETE', path, { key: own.personal_api_key, body: { tag_name: 'Production' } });
    expect(deleted.status).toBe(204);
    expect((await api(stack.url, 'DELETE', `${path}?tag_name=tag-1`, { key: own.personal_api_key })).status).toBe(204);
    expect((await api(stack.url, 'DELETE', path, { key: own.personal_api_key, body: { tag_name: 'nope' } })).status).toBe(404);
    expect((await api(stack.url, 'GET', path, { key: own.personal_api_key })).body.default_evaluation_tags).toHaveLength(8);
    expect((await api(stack.url, 'GET', path, { key: outsider.personal_api_key })).status).toBe(403);
    expect((await api(stack.url, 'POST', path, { key: outsider.personal_api_key, body: { tag_name: 'x' } })).status).toBe(403);
  });
});

describe('event ingestion restrictions', () => {
  it('are read over REST and set by admins over GraphQL', async () => {
    const own = await seedTenant(inject('databaseUrl'), 'restrictions');
    const path = `/api/projects/${own.project_id}/environments/${own.environment_id}/event_ingestion_restrictions/`;
    expect((await api(stack.url, 'GET', path, { key: own.personal_api_key })).body).toEqual([]);
    const set = await gql(
      stack.graphqlUrl,
      'mutation ($id: Int!) { set_environment_event_ingestion_restriction(id: $id, restriction_type: "drop_event_from_ingestion", distinct_ids: ["bot-1", " bot-1 "], pipelines: ["analytics"]) { restriction_type } }',
      { id: own.environment_id },
      own.personal_api_key,
    );
    expect(set.errors).toBeUndefined();
    expect((await api(stack.url, 'GET', path, { key: own.personal_api_key })).body).toEqual([
      { restriction_type: 'drop_event_from_ingestion', distinct_ids: ['bot-1'], session_ids: [], event_names: [], event_uuids: [], pipelines: ['analytics'] },
    ]);
    const badType = await gql(stack.graphqlUrl, 'mutation ($id: Int!) { set_environment_event_ingestion_restriction(id: $id, restriction_type: "everything") { restriction_type } }', { id: own.environment_id }, own.personal_api_key);
    expect(badType.errors?.[0]?.extensions).toMatchObject({ attr: 'restriction_type', code: 'invalid_choice' });
    const member = await seedTenant(inject('databaseUrl'), 'restrictionmember');
    await addMember(inject('databaseUrl'), stack.url, member.personal_api_key, own.organization_id, 1);
    const denied = await gql(stack.graphqlUrl, 'mutation ($id: Int!) { remove_environment_event_ingestion_restriction(id: $id, restriction_type: "drop_event_from_ingestion") }', { id: own.environment_id }, member.personal_api_key);
    expect(denied.errors?.[0]?.extensions?.status).toBe(403);
    expect((await api(stack.url, 'GET', path, { key: member.personal_api_key })).body).toHaveLength(1);
    expect((await api(stack.url, 'GET', path, { key: outsider.personal_api_key })).status).toBe(403);
  });
});

describe('change_organization', () => {
  it('moves a project with its environments for an admin of both organizations', async () => {
    const own = await seedTenant(inject('databaseUrl'), 'mover');
    const target = await seedTenant(inject('databaseUrl'), 'target');
    const path = `${projects(own)}${own.project_id}/change_organization/`;
    const notAdminThere = await api(stack.url, 'POST', path, { key: own.personal_api_key, body: { organization_id: target.organization_id } });
    expect(notAdminThere.status).toBe(403);
    expect(notAdminThere.body.detail).toBe('You must be an admin of both the source and target organizations to move a project.');
    const same = await api(stack.url, 'POST', path, { key: own.personal_api_key, body: { organization_id: own.organization_id } });
    expect(same.body).toMatchObject({ type: 'validation_error', detail: 'Project is already in the target organization.' });

    await addMember(inject('databaseUrl'), stack.url, own.personal_api_key, target.organization_id, 8);
    const moved = await api(stack.url, 'POST', path, { key: own.personal_api_key, body: { organization_id: target.organization_id } });
    expect(moved.status).toBe(200);
    expect(moved.body.organization).toBe(target.organization_id);
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect((await api(stack.url, 'GET', `${projects(target)}${own.project_id}/`, { key: target.personal_api_key })).status).toBe(200);
    expect((await api(stack.url, 'GET', `/api/environments/${own.environment_id}/`, { key: target.personal_api_key })).body.organization).toBe(target.organization_id);
    expect((await api(stack.url, 'GET', `${projects(own)}${own.project_id}/`, { key: own.personal_api_key })).status).toBe(404);
  });

  it("moves and deletes hold at once for every subgraph's environment lookups, though placements are cached", async () => {
    const own = await seedTenant(inject('databaseUrl'), 'placed');
    const target = await seedTenant(inject('databaseUrl'), 'receiving');
    await addMember(inject('databaseUrl'), stack.url, own.personal_api_key, target.organization_id, 8);
    const configs = `/api/environments/${own.environment_id}/customer_profile_configs/`;
    // Each read leaves the environment's placement cached in the customer-profiles subgraph.
    expect((await api(stack.url, 'GET', configs, { key: target.personal_api_key })).status).toBe(403);
    expect((await api(stack.url, 'GET', configs, { key: own.personal_api_key })).status).toBe(200);
    const moved = await api(stack.url, 'POST', `${projects(own)}${own.project_id}/change_organization/`, { key: own.personal_api_key, body: { organization_id: target.organization_id } });
    expect(moved.status).toBe(200);
    expect((await api(stack.url, 'GET', configs, { key: target.personal_api_key })).status).toBe(200);
    const deleted = await api(stack.url, 'DELETE', `${projects(target)}${own.project_id}/`, { key: target.personal_api_key });
    expect(deleted.status).toBe(204);
    expect((await api(stack.url, 'GET', configs, { key: target.personal_api_key })).status).toBe(404);
    expect((await api(stack.url, 'GET', configs, { key: own.personal_api_key })).status).toBe(404);
  });

  it("a rename shows at once in records that embed the project, though projects' names are cached", async () => {
    const own = await seedTenant(inject('databaseUrl'), 'renamed');
    const created = await api(stack.url, 'POST', `/api/environments/${own.environment_id}/customer_profile_configs/`, { key: own.personal_api_key, body: { scope: 'person', content: {} } });
    expect(created.status).toBe(201);
    const names = async () => {
      const answer = await gql(stack.graphqlUrl, 'query ($p: Int!) { customer_profile_configs(project_id: $p) { results { project { id name } } } }', { p: own.environment_id }, own.personal_api_key);
      return answer.data.customer_profile_configs.results.map((config: { project: { name: string } }) => config.project.name);
    };
    expect(await names()).toEqual(['Default project']);
    const renamed = await api(stack.url, 'PATCH', `${projects(own)}${own.project_id}/`, { key: own.personal_api_key, body: { name: 'Checkout' } });
    expect(renamed.status).toBe(200);
    expect(await names()).toEqual(['Checkout']);
  });
});

describe('tenant isolation: every project and environment action', () => {
  it.each([
    ['PATCH', 'project', 'add_product_intent', { product_type: 'surveys' }],
    ['PATCH', 'project', 'complete_product_onboarding', { product_type: 'surveys' }],
    ['POST', 'project', 'generate_conversations_public_token', {}],
    ['GET', 'project', 'is_generating_demo_data', undefined],
    ['GET', 'project', 'activity', undefined],
    ['PATCH', 'project', 'reset_token', {}],
    ['PATCH', 'project', 'rotate_secret_token', {}],
    ['PATCH', 'project', 'delete_secret_token_backup', {}],
    ['POST', 'project', 'change_organization', { organization_id: 'OUTSIDER_ORG' }],
    ['PATCH', 'environment', 'add_product_intent', { product_type: 'surveys' }],
    ['PATCH', 'environment', 'complete_product_onboarding', { product_type: 'surveys' }],
    ['POST', 'environment', 'generate_conversations_public_token', {}],
    ['GET', 'environment', 'is_generating_demo_data', undefined],
    ['GET', 'environment', 'settings_as_of', undefined],
    ['GET', 'environment', 'default_evaluation_tags', undefined],
    ['POST', 'environment', 'default_evaluation_tags', { tag_name: 'x' }],
    ['DELETE', 'environment', 'default_evaluation_tags', { tag_name: 'x' }],
    ['GET', 'environment', 'event_ingestion_restrictions', undefined],
    ['PATCH', 'environment', 'reset_token', {}],
    ['PATCH', 'environment', 'rotate_secret_token', {}],
    ['PATCH', 'environment', 'delete_secret_token_backup', {}],
  ] as const)('%s %s/%s: refused, and the owner\'s records are unchanged', async (method, kind, action, body) => {
    const project = `${projects(owner)}${owner.project_id}`;
    const environment = `/api/projects/${owner.project_id}/environments/${owner.environment_id}`;
    const query = action === 'settings_as_of' ? '?at=2026-01-01T00:00:00Z' : '';
    const before = [(await api(stack.url, 'GET', `${project}/`, { key: owner.personal_api_key })).body, (await api(stack.url, 'GET', `${environment}/`, { key: owner.personal_api_key })).body];
    const sent = body && 'organization_id' in body ? { organization_id: outsider.organization_id } : body;
    const response = await api(stack.url, method, `${kind === 'project' ? project : environment}/${action}/${query}`, { key: outsider.personal_api_key, body: sent });
    expect([403, 404]).toContain(response.status);
    expect(Object.keys(response.body).sort()).toEqual(['attr', 'code', 'detail', 'type']);
    const after = [(await api(stack.url, 'GET', `${project}/`, { key: owner.personal_api_key })).body, (await api(stack.url, 'GET', `${environment}/`, { key: owner.personal_api_key })).body];
    expect(after).toEqual(before);
  });
});
