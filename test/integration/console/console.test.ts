// The operator console in a real browser (headless Chromium driven by playwright-core, one
// launch for the file) on both databases: sign-in with the operator token, the overview's
// figures and charts against the hand-counted data set (the numbers each uPlot chart plotted,
// and pixels on its canvas), the live part refreshing, the merchant filter, an order's
// timeline, and no Content-Security-Policy violation anywhere; a sign-out posted by a page on
// another site is refused, the console's own works. Refusals without the operator credential
// (and with a merchant's token) are checked without the browser.
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { eq } from 'drizzle-orm';
import { DB_KINDS } from '../../helpers/db.ts';
import { batchProgress } from '../../../src/db/schema.ts';
import { CONTENT_SECURITY_POLICY } from '../../../src/http/console/index.ts';
import { EXPECTED, dayAt } from '../reports/seed.ts';
import { consoleFixture, type ConsoleFixture } from './fixture.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

let browser: Browser;
beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install the Debian package chromium (.ci/run does) or set CHROMIUM_PATH`);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
});
afterAll(async () => {
  await browser?.close();
});

// Scripts run in the page are strings: the project's TypeScript has no DOM types.
const RECORD_CSP = "window.__csp = []; document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));";

/** A browser context that records CSP violations, console errors and page errors. */
async function watchedPage(): Promise<{ context: BrowserContext; page: Page; problems: () => Promise<string[]> }> {
  const context = await browser.newContext();
  await context.addInitScript({ content: RECORD_CSP });
  const page = await context.newPage();
  const seen: string[] = [];
  page.on('console', (m) => {
    if (m.type() === 'error' && !/401 \(Unauthorized\)/.test(m.text())) seen.push(`console: ${m.text()}`);
  });
  page.on('pageerror', (e) => seen.push(`page error: ${e.message}`));
  return { context, page, problems: async () => [...seen, ...(await page.evaluate<string[]>('window.__csp')).map((v) => `csp: ${v}`)] };
}

const text = (page: Page, selector: string) => page.locator(selector).first().innerText();
const attr = async (page: Page, selector: string, name: string) => JSON.parse((await page.locator(selector).getAttribute(name)) ?? 'null') as unknown;

/** Pixels of a chart's canvas in roughly the given colour: the bars were really drawn. */
function pixels(page: Page, chart: string, rgb: [number, number, number]): Promise<number> {
  return page.evaluate<number>(`(() => {
    const canvas = document.querySelector('#${chart} canvas');
    if (!canvas) return -1;
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    const [r, g, b] = ${JSON.stringify(rgb)};
    let n = 0;
    for (let i = 0; i < data.length; i += 4) {
      if (data[i + 3] >= 200 && Math.abs(data[i] - r) < 8 && Math.abs(data[i + 1] - g) < 8 && Math.abs(data[i + 2] - b) < 8) n++;
    }
    return n;
  })()`);
}

describe.each(DB_KINDS)('console on %s', (kind) => {
  let f: ConsoleFixture;
  let base: string;

  beforeAll(async () => {
    f = await consoleFixture(kind, { livePollMs: 250 });
    await f.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(f.app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await f?.close();
  });

  it('refuses without the operator credential, and with a merchant token', async () => {
    const page = await f.app.inject({ url: '/console' });
    expect(page.statusCode).toBe(303);
    expect(page.headers.location).toBe('/console/login');
    const api = await f.app.inject({ url: '/console/api/report.json' });
    expect(api.statusCode).toBe(401);
    expect(api.json()).toMatchObject({ success: false, statusCode: 'ERR_CONSOLE_UNAUTHORIZED' });
    const merchant = await f.app.inject({ method: 'POST', url: '/oauth2/token', payload: { grant_type: 'client_credentials', client_id: f.seeded.credsA.clientId, client_secret: f.seeded.credsA.clientSecret } });
    const asMerchant = await f.app.inject({ url: '/console/api/report.json', headers: { authorization: `Bearer ${merchant.json().access_token}` } });
    expect(asMerchant.statusCode).toBe(401);
    const forged = await f.app.inject({ url: '/console', headers: { cookie: `rescued_console=9999999999.${'A'.repeat(43)}` } });
    expect(forged.statusCode).toBe(303);
    const order = await f.app.inject({ url: `/console/orders/${f.seeded.keys[1]}` });
    expect(order.statusCode).toBe(303);
    const withToken = await f.app.inject({ url: '/console/api/report.json', headers: { authorization: `Bearer ${f.operatorToken}` } });
    expect(withToken.statusCode).toBe(200);
    expect(withToken.json()).toMatchObject({ ordersByState: EXPECTED.ordersByState });
    expect(withToken.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
  });

  it('signs in with the operator token and draws the overview with the seeded figures', async () => {
    const { context, page, problems } = await watchedPage();
    try {
      const first = await page.goto(`${base}/console`);
      expect(page.url()).toBe(`${base}/console/login`);
      expect(first!.headers()['content-security-policy']).toBe(CONTENT_SECURITY_POLICY);
      await page.fill('input[name=token]', 'rco_not-the-token');
      await page.click('form.login button');
      expect(await text(page, '.error')).toContain('not the operator token');
      await page.fill('input[name=token]', f.operatorToken);
      await page.click('form.login button');
      await page.waitForURL(`${base}/console`);

      for (const [state, n] of Object.entries(EXPECTED.ordersByState)) expect(await text(page, `[data-figure="state-${state}"]`), state).toBe(String(n));
      expect(await text(page, '[data-figure="rate"]')).toBe('62.5%');
      expect(await text(page, '[data-figure="recovered"]')).toBe('5');
      expect(await text(page, '[data-amount="recovered-USD"]')).toBe('94.99');
      expect(await text(page, '[data-amount="recovered-EUR"]')).toBe('12.00');
      expect(await text(page, '[data-amount="refunded-USD"]')).toBe('2.00');
      expect(await text(page, '[data-figure="queue-depth"]')).toBe('5');
      expect(await text(page, '[data-figure="webhooks-dead"]')).toBe('1');
      expect(await text(page, '[data-figure="webhooks-pending"]')).toBe('2');
      // The merchant's name is text, never markup.
      expect(await text(page, `#merchants tr[data-row="${f.seeded.mids.A}"] th`)).toBe('Acme <Shop> & Co');
      expect(await page.locator('shop').count()).toBe(0);

      await page.waitForSelector('#chart-days[data-rendered="true"]');
      const labels = (await attr(page, '#chart-days', 'data-labels')) as string[];
      const expectedDay = (i: number) => labels.map((day) => Object.entries(EXPECTED.days).find(([o]) => dayAt(Number(o)) === day)?.[1][i] ?? 0);
      // The data it has: from the first attempt (100 days back) to the last planned one (2 days ahead).
      expect(labels).toEqual(Array.from({ length: 103 }, (_x, i) => dayAt(i - 100)));
      expect(await attr(page, '#chart-days', 'data-plotted')).toEqual([expectedDay(0), expectedDay(1), expectedDay(3)]);
      expect(await pixels(page, 'chart-days', [59, 110, 165])).toBeGreaterThan(50);
      expect(await pixels(page, 'chart-days', [208, 140, 47])).toBeGreaterThan(50);

      const rates = { 'chart-reasons': [[80, 50, null, 0, null]], 'chart-brands': [[60, 100, 100, 0]], 'chart-merchants': [[60, 66.7]] };
      for (const [chart, plotted] of Object.entries(rates)) {
        await page.waitForSelector(`#${chart}[data-rendered="true"]`);
        expect(await attr(page, `#${chart}`, 'data-plotted'), chart).toEqual(plotted);
        expect(await pixels(page, chart, [59, 110, 165]), chart).toBeGreaterThan(200);
      }
      expect(await attr(page, '#chart-reasons', 'data-labels')).toEqual(EXPECTED.byReason.map((r) => r.reason));

      // The live part follows the database: the file being ingested moves on.
      expect(await page.locator(`tr[data-batch="${f.seeded.ingestingBatch}"] progress`).getAttribute('value')).toBe('0.5');
      await f.tdb.database.db.update(batchProgress).set({ acceptedCount: 880, rejectedCount: 120 }).where(eq(batchProgress.batchId, f.seeded.ingestingBatch));
      await page.waitForSelector(`tr[data-batch="${f.seeded.ingestingBatch}"] progress[value="1"]`, { timeout: 10_000 });
      expect(await text(page, `tr[data-batch="${f.seeded.batchX}"] [data-cell="final"]`)).toBe('2');

      // The merchant filter narrows every figure.
      await page.selectOption('select[name=merchant]', f.seeded.mids.B);
      await page.click('form.scope button');
      await page.waitForURL(/merchant=/);
      expect(await text(page, '[data-figure="state-APPROVED"]')).toBe('2');
      expect(await text(page, '[data-figure="rate"]')).toBe('66.7%');
      expect(await page.locator(`tr[data-batch]`).count()).toBe(0);
      expect(await problems()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('shows an order: its attempt timeline with raw and advice codes, the planner\'s reasons, the webhooks sent', async () => {
    const { context, page, problems } = await watchedPage();
    try {
      await page.goto(`${base}/console/login`);
      await page.fill('input[name=token]', f.operatorToken);
      await page.click('form.login button');
      await page.waitForURL(`${base}/console`);
      await page.fill('form.lookup input[name=key]', f.seeded.keys[1]!);
      await page.click('form.lookup button');
      await page.waitForURL(`${base}/console/orders/${f.seeded.keys[1]}`);

      expect(await text(page, '[data-field="orderId"]')).toBe(f.seeded.orderIds[1]);
      expect(await text(page, '[data-field="decline"]')).toBe('51 (iso8583) → insufficient_funds, soft');
      const first = page.locator('li[data-attempt="1"]');
      expect(await first.locator('[data-cell="status"]').innerText()).toBe('declined');
      expect(await first.locator('[data-cell="responseCode"]').innerText()).toBe('51');
      expect(await first.locator('[data-cell="adviceCode"]').innerText()).toBe('24');
      expect(await first.locator('[data-cell="planReason"]').innerText()).toBe('first try after the decline');
      expect(await first.locator('[data-cell="account"]').innerText()).toBe('main-stripe');
      expect(await first.locator('[data-cell="rawCode"]').innerText()).toBe('card_declined/insufficient_funds');
      expect(await first.locator('[data-cell="rawMessage"]').innerText()).toBe('Your card has <insufficient> funds.');
      expect(await first.locator('[data-cell="ntid"]').innerText()).toBe('NTID-2-1');
      const second = page.locator('li[data-attempt="2"]');
      expect(await second.locator('[data-cell="status"]').innerText()).toBe('approved');
      expect(await second.locator('[data-cell="planReason"]').innerText()).toBe('MAC 24: retry after 1 day');
      expect(await page.locator('li[data-next="none"]').count()).toBe(1);
      expect(await page.locator('#order-webhooks tbody tr').count()).toBe(1);
      expect(await text(page, '#order-webhooks [data-cell="delivery"]')).toBe('pending, 1 attempt(s), last HTTP 503, next 2026-11-20T11:59:00.000Z');

      await page.goto(`${base}/console/orders/${f.seeded.keys[3]}`);
      expect(await text(page, 'li[data-next="planned"] [data-cell="planReason"]')).toBe('retry: spaced daily (#4)');
      expect(await problems()).toEqual([]);
      // Not a problem of the page: the browser reports the 404 itself.
      const missing = await page.goto(`${base}/console/orders/00000000-0000-4000-8000-000000000000`);
      expect(missing!.status()).toBe(404);
      expect(await text(page, '.error')).toBe('No order with this orderSessionKey.');
    } finally {
      await context.close();
    }
  });

  it('refuses a sign-out posted from a page on another site; the console\'s own Sign out works', async () => {
    // The other site: a page on localhost (another site than 127.0.0.1) with a form aimed at the console.
    const other = createServer((_req, res) => {
      res.setHeader('content-type', 'text/html; charset=utf-8');
      res.end(`<!doctype html><form method="post" action="${base}/console/logout"><button id="forge">win a prize</button></form>`);
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    const { context, page } = await watchedPage();
    try {
      await page.goto(`${base}/console/login`);
      await page.fill('input[name=token]', f.operatorToken);
      await page.click('form.login button');
      await page.waitForURL(`${base}/console`);
      const [cookie] = await context.cookies(`${base}/console`);
      expect(cookie).toMatchObject({ name: 'rescued_console', sameSite: 'Strict', httpOnly: true, path: '/console' });

      await page.goto(`http://localhost:${(other.address() as AddressInfo).port}/`);
      const [forged] = await Promise.all([page.waitForResponse(`${base}/console/logout`), page.click('#forge')]);
      expect(forged.status()).toBe(403);
      await page.waitForURL(`${base}/console/logout`);
      expect(await page.locator('.error').getAttribute('data-code')).toBe('ERR_CONSOLE_CROSS_SITE');
      // Still signed in: the overview opens without the sign-in form.
      await page.goto(`${base}/console`);
      expect(page.url()).toBe(`${base}/console`);

      await page.click('header button.link');
      await page.waitForURL(`${base}/console/login`);
      await page.goto(`${base}/console`);
      expect(page.url()).toBe(`${base}/console/login`);
    } finally {
      await context.close();
      await new Promise((resolve) => other.close(resolve));
    }
  });
});
