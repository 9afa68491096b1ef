// Moving through the console in a real browser (headless Chromium, playwright-core), on both
// databases, over the hand-counted report data set: every state count, decline reason and
// batch of the overview links to the orders behind it (as many as the figure says, in the
// overview's scope); "Open order" takes an orderSessionKey or a merchant's orderId; the
// batches page lists every batch — being ingested, rescuing, finished, and rejected whole by
// intake with its reason; `?since=` and the selector agree; and no page overflows a 420 px
// wide screen. No Content-Security-Policy violation or script error anywhere.
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { createIngestQueue } from '../../../src/intake/queue.ts';
import { findMerchantByMid, siteIdsOf } from '../../../src/db/queries/find-merchant.ts';
import { DB_KINDS, silentLog } from '../../helpers/db.ts';
import { sampleBatch, tokenPassThrough } from '../../helpers/intake.ts';
import { tmp } from '../../helpers/sftp.ts';
import { EXPECTED } from '../reports/seed.ts';
import { consoleFixture, type ConsoleFixture } from './fixture.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const RECORD_CSP = "window.__csp = []; document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));";

let browser: Browser;
beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: install the Debian package chromium (.ci/run does) or set CHROMIUM_PATH`);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'] });
});
afterAll(async () => {
  await browser?.close();
});

describe.each(DB_KINDS)('moving through the console on %s', (kind) => {
  let f: ConsoleFixture;
  let base: string;
  const dir = tmp('rescued-console-nav-');
  const rejected: Array<{ name: string; code: string; bytes: number }> = [];

  beforeAll(async () => {
    f = await consoleFixture(kind, { livePollMs: 60_000 });
    await f.app.listen({ host: '127.0.0.1', port: 0 });
    base = `http://127.0.0.1:${(f.app.server.address() as AddressInfo).port}`;
    // Two files rejected whole by intake itself: a name that is not a batch file's, and a file that is not JSON.
    for (const d of ['inbound', 'outbound', 'archive']) mkdirSync(join(dir, d));
    const queue = intakeQueue();
    const merchant = (await findMerchantByMid(f.tdb.database.db, f.seeded.mids.A))!;
    for (const [name, body, code] of [['orders.csv', 'orderId,amount\n1,10.00\n', 'ERR_INTAKE_FILE_TYPE'], ['broken.json', '{"mid": "x", "requests": [', 'ERR_INTAKE_SYNTAX']] as const) {
      const path = join(dir, 'inbound', name);
      writeFileSync(path, body);
      const bytes = statSync(path).size;
      await queue.onFileReady({ merchantId: merchant.id, mid: f.seeded.mids.A, username: 'acme', path, name, size: bytes, ...(name.endsWith('.csv') ? { unsupported: true } : {}) });
      rejected.push({ name, code, bytes });
    }
    await queue.stop();
  });
  afterAll(async () => {
    await f?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Intake's own queue, answering into `dir`/outbound. */
  const intakeQueue = () =>
    createIngestQueue({
      deps: { db: f.tdb.database.db, tokens: f.tokens, cards: tokenPassThrough, mode: 'sandbox', log: silentLog, archiveDir: join(dir, 'archive') },
      policy: { maxTries: 1, retryBaseMs: 10, retryMaxMs: 10 },
      quarantineDir: join(dir, 'quarantine'),
      outboundFor: async () => join(dir, 'outbound'),
      log: silentLog,
    });

  /** A signed-in page (through the sign-in form) that records CSP violations and script errors. */
  async function signedIn(): Promise<{ context: BrowserContext; page: Page; problems: () => Promise<string[]> }> {
    const context = await browser.newContext();
    await context.addInitScript({ content: RECORD_CSP });
    const page = await context.newPage();
    const seen: string[] = [];
    page.on('pageerror', (e) => seen.push(`page error: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/404 \(Not Found\)/.test(m.text())) seen.push(`console: ${m.text()}`);
    });
    await page.goto(`${base}/console/login`);
    await page.fill('input[name=token]', f.operatorToken);
    await page.click('form.login button');
    await page.waitForURL(`${base}/console`);
    return { context, page, problems: async () => [...seen, ...(await page.evaluate<string[]>('window.__csp')).map((v) => `csp: ${v}`)] };
  }

  const rowsOf = (page: Page) => page.locator('#orders tbody tr').count();

  it('links each state count and decline reason of the overview to as many orders, in its scope', async () => {
    const { context, page, problems } = await signedIn();
    try {
      for (const [state, n] of Object.entries(EXPECTED.ordersByState)) {
        await page.goto(`${base}/console`);
        await page.click(`a[data-link="state-${state}"]`);
        await page.waitForURL(`${base}/console/orders?state=${state}`);
        expect(await rowsOf(page), state).toBe(n);
        expect(new Set(await page.locator('#orders tbody .status').allInnerTexts())).toEqual(new Set([state]));
      }
      for (const r of EXPECTED.byReason) {
        await page.goto(`${base}/console`);
        await page.click(`tr[data-row="${r.reason}/${r.class}"] a[data-link="row"]`);
        await page.waitForURL(/\/console\/orders\?reason=/);
        expect(new URL(page.url()).searchParams.get('class')).toBe(r.class);
        expect(await rowsOf(page), r.reason).toBe(r.orders);
      }
      // In a scope (one merchant, the last 30 days), a link keeps it and lists as many as the figure shows.
      await page.goto(`${base}/console?since=30d&merchant=${f.seeded.mids.B}`);
      const shown = Number(await page.locator('[data-figure="state-APPROVED"]').innerText());
      expect(shown).toBe(1); // B's approved orders, less the one 100 days old
      await page.click('a[data-link="state-APPROVED"]');
      await page.waitForURL(/\/console\/orders\?/);
      expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({ state: 'APPROVED', merchant: f.seeded.mids.B, since: '30d' });
      expect(await rowsOf(page)).toBe(shown);
      // Each order links to its page.
      await page.click('#orders tbody a');
      await page.waitForURL(`${base}/console/orders/${f.seeded.keys[11]}`);
      expect(await problems()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('lists every batch on the batches page, rejected files with their reason, and links a batch to its orders', async () => {
    const { context, page, problems } = await signedIn();
    try {
      await page.click('a[data-link="batches"]');
      await page.waitForURL(`${base}/console/batches`);
      const statuses = Object.fromEntries(await page.locator('#batch-list tbody tr').evaluateAll((rows) => rows.map((r) => [r.getAttribute('data-file'), r.getAttribute('data-status')])));
      expect(statuses).toEqual({ 'big.json': 'ingesting', 'rebill-x.json': 'partially_accepted', 'rebill-y.json': 'accepted', 'orders.csv': 'rejected-whole', 'broken.json': 'rejected-whole' });
      for (const r of rejected) {
        const row = page.locator(`#batch-list tr[data-file="${r.name}"]`);
        expect(await row.locator('[data-code]').getAttribute('data-code')).toBe(r.code);
        expect(await row.innerText()).toContain(String(r.bytes));
      }
      expect(await page.locator('tr[data-file="orders.csv"]').innerText()).toMatch(/\.json or \.json\.gz/);
      await page.click('tr[data-file="rebill-x.json"] a[data-link="orders"]');
      await page.waitForURL(/\/console\/orders\?batch=/);
      expect(await rowsOf(page)).toBe(3);
      // From the overview's batches in progress too.
      await page.goto(`${base}/console`);
      await page.click(`tr[data-batch="${f.seeded.batchX}"] a[data-link="batch"]`);
      await page.waitForURL(`${base}/console/orders?batch=${f.seeded.batchX}`);
      expect(await page.locator('#orders tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-order')))).toEqual([f.seeded.keys[0], f.seeded.keys[2], f.seeded.keys[3]]);
      expect(await problems()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('opens an order by its orderSessionKey or by the merchant\'s orderId, and says when neither is known', async () => {
    const { context, page, problems } = await signedIn();
    try {
      for (const key of [f.seeded.keys[4]!, f.seeded.orderIds[4]!]) {
        await page.goto(`${base}/console/batches`);
        await page.fill('form.lookup input[name=key]', key);
        await page.click('form.lookup button');
        await page.waitForURL(`${base}/console/orders/${f.seeded.keys[4]}`);
        expect(await page.locator('[data-field="orderId"]').innerText()).toBe(f.seeded.orderIds[4]);
      }
      expect(await problems()).toEqual([]);
      await page.fill('form.lookup input[name=key]', 'ORD-nobody-has-this');
      const [missing] = await Promise.all([page.waitForResponse(/\/console\/orders\?key=/), page.click('form.lookup button')]);
      expect(missing.status()).toBe(404);
      expect(await page.locator('.error').innerText()).toBe('No order with this orderSessionKey or orderId.');
    } finally {
      await context.close();
    }
  });

  it('shows in the selector the scope the address asks for, and keeps it through Show', async () => {
    const { context, page, problems } = await signedIn();
    try {
      for (const [since, label] of [['7d', 'last 7 days'], ['48h', 'since 48h'], ['2026-11-01', 'since 2026-11-01']] as const) {
        await page.goto(`${base}/console?since=${since}`);
        expect(await page.locator('select[name=since]').inputValue()).toBe(since);
        expect(await page.locator('select[name=since] option:checked').innerText()).toBe(label);
        await page.click('form.scope button');
        await page.waitForURL(/\/console\?since=/);
        expect(new URL(page.url()).searchParams.get('since')).toBe(since);
      }
      await page.goto(`${base}/console`);
      expect(await page.locator('select[name=since]').inputValue()).toBe('');
      expect(await problems()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('fits every page, header first, on a 420 px wide screen', async () => {
    const { context, page, problems } = await signedIn();
    try {
      await page.setViewportSize({ width: 420, height: 900 });
      for (const path of ['/console', '/console/batches', '/console/orders', `/console/orders/${f.seeded.keys[1]}`]) {
        await page.goto(`${base}${path}`);
        const box = await page.evaluate<{ scroll: number; header: number; right: number; lookup: number }>(`(() => {
          const header = document.querySelector('header.top');
          const right = Math.max(...[...header.querySelectorAll('*')].map((e) => e.getBoundingClientRect().right));
          return { scroll: document.documentElement.scrollWidth, header: header.scrollWidth, right, lookup: document.querySelector('form.lookup button').getBoundingClientRect().right };
        })()`);
        expect(box.scroll, path).toBeLessThanOrEqual(420);
        expect(box.header, path).toBeLessThanOrEqual(420);
        expect(box.right, path).toBeLessThanOrEqual(420);
        expect(box.lookup, path).toBeLessThanOrEqual(420);
      }
      expect(await problems()).toEqual([]);
    } finally {
      await context.close();
    }
  });

  // Last: it adds an order to the data set the tests above count.
  it('lists every merchant\'s order with the orderId looked up when there are several, each linked', async () => {
    const db = f.tdb.database.db;
    const b = (await findMerchantByMid(db, f.seeded.mids.B))!;
    const token = (await f.tokens.issue({ merchantId: b.id, mid: f.seeded.mids.B, clientId: f.seeded.credsB.clientId })).token;
    const batch = sampleBatch({ mid: f.seeded.mids.B, siteId: [...(await siteIdsOf(db, b.id))][0]!, token }, 'shared');
    // Merchant B's own order under the orderId merchant A used for order 5: orderIds are each merchant's own.
    batch.requests = [{ ...batch.requests[0]!, orderId: f.seeded.orderIds[4]!, sequenceNumber: 1 }];
    const path = join(dir, 'inbound', 'shared.json');
    writeFileSync(path, JSON.stringify(batch));
    const queue = intakeQueue();
    await queue.onFileReady({ merchantId: b.id, mid: f.seeded.mids.B, username: 'beta', path, name: 'shared.json', size: statSync(path).size });
    await queue.stop();
    expect(JSON.parse(readFileSync(join(dir, 'outbound', 'shared.json.ack.json'), 'utf8'))).toMatchObject({ status: 'accepted' });

    const { context, page, problems } = await signedIn();
    try {
      await page.fill('form.lookup input[name=key]', f.seeded.orderIds[4]!);
      await page.click('form.lookup button');
      await page.waitForURL(/\/console\/orders\?key=/);
      const rows = await page.locator('#orders tbody tr').evaluateAll((trs) => trs.map((r) => [r.querySelector('td:nth-child(3)')!.textContent, r.getAttribute('data-order')]));
      expect(rows.map(([mid]) => mid).sort()).toEqual([f.seeded.mids.A, f.seeded.mids.B].sort());
      expect(rows.map(([, key]) => key)).toContain(f.seeded.keys[4]);
      // Scoped to a merchant, the orderId is that merchant's one order.
      await page.goto(`${base}/console/orders?key=${encodeURIComponent(f.seeded.orderIds[4]!)}&merchant=${f.seeded.mids.A}`);
      expect(page.url()).toBe(`${base}/console/orders/${f.seeded.keys[4]}`);
      expect(await problems()).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
