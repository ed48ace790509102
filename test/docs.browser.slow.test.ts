import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { seedTenant, type Tenant } from './kit/seed.js';
import { startStack, type Stack } from './kit/stack.js';

/** Debian's chromium (`.ci/run` installs it when missing); playwright-core downloads no browser. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
/** What the first page (an explorer's HTML, before its files) may weigh. */
const FIRST_PAGE_LIMIT = 1024 * 1024;
/** A browser and the platform share two cores with other suites: first visits compress the files. */
const STEP_TIMEOUT_MS = 60_000;

/** One finished request: its URL and the bytes that crossed the wire (0 when the cache answered). */
interface Transfer {
  method: string;
  url: string;
  bytes: number;
}

/**
 * What a page asks for: every URL off the platform's origin (there must be none: the explorers
 * work offline), and what each finished request transferred (headers and encoded body).
 */
function watch(page: Page, origin: string): { foreign: string[]; transfers: () => Promise<Transfer[]> } {
  const foreign: string[] = [];
  const transfers: Promise<Transfer>[] = [];
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.origin !== origin && url.protocol !== 'data:' && url.protocol !== 'blob:') foreign.push(request.url());
  });
  page.on('requestfinished', (request) => {
    // Chromium reports a cached answer's body as minus its headers' size: nothing was transferred.
    transfers.push(request.sizes().then((size) => ({ method: request.method(), url: request.url(), bytes: Math.max(0, size.responseHeadersSize + size.responseBodySize) })));
  });
  return {
    foreign,
    transfers: async () => {
      const done = await Promise.all(transfers);
      transfers.length = 0;
      return done;
    },
  };
}

const total = (transfers: Transfer[]) => transfers.reduce((sum, transfer) => sum + transfer.bytes, 0);

describe(`the explorers in a real browser (${CHROMIUM})`, () => {
  let stack: Stack;
  let tenant: Tenant;
  let browser: Browser;

  beforeAll(async () => {
    // Missing, the test fails rather than skipping: CI installs chromium, so a skip would hide a lost browser test.
    if (!existsSync(CHROMIUM)) throw new Error(`no browser at ${CHROMIUM}: apt-get install chromium, or set CHROMIUM_PATH`);
    // The stack migrates the database before a tenant can be seeded; the browser starts meanwhile.
    const launching = chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    stack = await startStack({ databaseUrl: inject('databaseUrl') });
    [tenant, browser] = await Promise.all([seedTenant(inject('databaseUrl'), 'docs-browser'), launching]);
  });
  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  async function open(path: string): Promise<{ page: Page; html: number; traffic: ReturnType<typeof watch> }> {
    const page = await browser.newPage();
    page.setDefaultTimeout(STEP_TIMEOUT_MS);
    const traffic = watch(page, stack.url);
    const document = await page.goto(`${stack.url}${path}`, { timeout: STEP_TIMEOUT_MS });
    expect(document?.status()).toBe(200);
    return { page, html: (await document!.body()).length, traffic };
  }

  it('runs an operation of the REST reference with Authorize and "Try it out", offline, its files cached', async () => {
    const { page, html, traffic } = await open('/api/docs/');
    expect(html).toBeLessThan(FIRST_PAGE_LIMIT);

    await page.locator('.auth-wrapper button.authorize').click();
    const dialog = page.locator('.dialog-ux');
    await dialog.locator('input').first().fill(tenant.personal_api_key);
    await dialog.locator('.auth-btn-wrapper button.authorize').click();
    await dialog.locator('.auth-btn-wrapper button.btn-done').click();

    // Swagger UI renders a long document's operations only as the page scrolls: filter by tag first.
    await page.locator('input.operation-filter-input').fill('users');
    const operation = page.locator('.opblock-get:has(.opblock-summary-path[data-path="/api/users/{uuid}/"])');
    await operation.locator('.opblock-summary').click();
    await operation.locator('button.try-out__btn').click();
    await operation.locator('input[placeholder="uuid"]').fill('@me');
    const answered = page.waitForResponse((response) => response.request().method() === 'GET' && new URL(response.url()).pathname.includes('/users/'));
    await operation.locator('button.execute').click();
    const answer = await answered;
    expect(new URL(answer.url()).pathname).toBe('/api/users/%40me/');
    expect(answer.status()).toBe(200);
    await expect.poll(() => operation.locator('.live-responses-table tr.response .response-col_status').textContent()).toContain('200');
    expect(await operation.locator('.live-responses-table tr.response .microlight').first().textContent()).toContain(tenant.email);
    const first = await traffic.transfers();

    // A second visit revalidates the page (a 304) and takes every versioned file from the cache.
    await page.reload({ waitUntil: 'networkidle', timeout: STEP_TIMEOUT_MS });
    const second = await traffic.transfers();
    const files = second.filter((transfer) => new URL(transfer.url).searchParams.has('v'));
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((transfer) => transfer.bytes > 0)).toEqual([]);

    expect(traffic.foreign).toEqual([]);
    const explorer = (transfers: Transfer[]) => transfers.filter((transfer) => /^\/api\/docs\//.test(new URL(transfer.url).pathname));
    process.stdout.write(`/api/docs/: page ${html} B; the page and its files transferred ${total(explorer(first))} B at the first visit, ${total(explorer(second))} B at the second\n`);
    await page.close();
  }, 4 * STEP_TIMEOUT_MS);

  it('renders GraphiQL from the platform\'s own files and runs a query with the key, offline', async () => {
    const workers: string[] = [];
    const { page, html, traffic } = await open('/graphql');
    page.on('worker', (worker) => workers.push(worker.url()));
    expect(html).toBeLessThan(FIRST_PAGE_LIMIT);

    await page.locator('.graphiql-container').first().waitFor();
    await page.getByRole('button', { name: 'Headers' }).click();
    await page.locator('.graphiql-editor-tool .monaco-editor').last().click();
    await page.keyboard.press('ControlOrMeta+A');
    // Inserted whole: typed, Monaco would close each brace and quote itself.
    await page.keyboard.insertText(JSON.stringify({ Authorization: `Bearer ${tenant.personal_api_key}` }));
    const answered = page.waitForResponse((response) => response.request().method() === 'POST' && new URL(response.url()).pathname === '/graphql' && (response.request().postData() ?? '').includes('email'));
    await page.locator('.graphiql-execute-button').click();
    expect((await answered).status()).toBe(200);
    await expect.poll(() => page.locator('.graphiql-response').textContent()).toContain(tenant.email);

    // Monaco's workers (editing, JSON, GraphQL) run from the platform's files, not from blobs.
    expect(workers.length).toBeGreaterThan(0);
    for (const url of workers) expect(url.startsWith(`${stack.url}/graphql/assets/`), url).toBe(true);
    expect(traffic.foreign).toEqual([]);
    const files = (await traffic.transfers()).filter((transfer) => transfer.method === 'GET' && new URL(transfer.url).pathname.startsWith('/graphql'));
    process.stdout.write(`/graphql: page ${html} B; the page and its files (workers aside) transferred ${total(files)} B\n`);
    await page.close();
  }, 4 * STEP_TIMEOUT_MS);
});
