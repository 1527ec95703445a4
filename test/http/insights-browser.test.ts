// The console's insights page in Chromium: reached from the navigation, its tables and bar charts drawn under the
// console's CSP (no violation reported), usable at 360 px, and no serious accessibility violation (axe-core).
import { mkdirSync, readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type ServeHandle } from 'countersign/http';
import { hasChromium, launchChromium } from '../support/chromium.js';
import { harness, TOKEN } from './harness.js';

const shots = 'test-results/console';

describe.skipIf(!hasChromium)('the insights page in Chromium', () => {
  let browser: Browser;
  let server: ServeHandle;
  const h = harness({ app: { clock: Date.now } });

  beforeAll(async () => {
    mkdirSync(shots, { recursive: true });
    server = await serve(h.app, { port: 0 });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('shows the tables and charts of what people decided, reached from the navigation, at 360 px', async () => {
    const context = await browser.newContext({ viewport: { width: 360, height: 780 } });
    const page = await context.newPage();
    // What the browser refused (a CSP violation is reported as a console error) or could not load.
    const violations: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        violations.push(message.text());
    });
    page.on('response', (response) => {
      if (response.status() >= 400 && !response.url().endsWith('/favicon.ico')) violations.push(response.url());
    });
    await page.goto(server.url);
    await page.getByLabel('API token').fill(TOKEN);
    await page.getByLabel('Your name').fill('alice');
    await Promise.all([
      page.waitForURL(`${server.url}/`),
      page.getByRole('button', { name: 'Sign in', exact: true }).click(),
    ]);
    // The history listens from the first visit: open the page, then decide.
    await page.getByRole('link', { name: 'Insights' }).click();
    await page.getByText('No request was decided in this window.').waitFor();
    for (const [by, approved] of [
      ['alice', true],
      ['bob', false],
      ['alice', true],
    ] as const) {
      const run = await h.runtime.start('files', { input: `/tmp/${by}` });
      await h.runtime.respond(run.runId, { approvalId: run.pendingApprovals[0]!.approvalId, approvedBy: by, approved });
    }
    await page.reload();

    const byTool = page.getByRole('table', { name: 'By tool' });
    expect(await byTool.getByRole('row').nth(1).innerText()).toMatch(/delete_file\s+3\s+2\s+1\s+0\s+0\s+67%/);
    const byApprover = page.getByRole('table', { name: 'By approver' });
    expect(await byApprover.getByRole('row').count()).toBe(3);
    const rate = page.getByRole('img', { name: 'Approval rate by approver' });
    const bars = await rate
      .locator('rect.bar')
      .evaluateAll((rects) => rects.map((rect) => (rect as SVGRectElement).getBBox().width));
    expect(bars).toEqual([300, 0]);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

    await page.evaluate(readFileSync('node_modules/axe-core/axe.min.js', 'utf8'));
    const found = (await page.evaluate('axe.run().then((result) => result.violations)')) as {
      id: string;
      impact: string;
    }[];
    expect(found.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')).toEqual([]);
    expect(violations).toEqual([]);
    await page.screenshot({ path: `${shots}/insights.png`, fullPage: true });
    await context.close();
  });
});
