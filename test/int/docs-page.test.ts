// The API reference at /docs, in a real browser: it renders the operations, a kind's PUT shows that
// kind's body schema, and the page reaches no other origin.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startTestServer, type TestServer } from '../support/server';
import { chromiumPath, launchBrowser, NO_BROWSER_REASON } from '../support/browser';

if (!chromiumPath) console.log(`skipped: the /docs page in a browser (${NO_BROWSER_REASON})`);

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(async () => {
  await s?.close();
});

describe('/docs over HTTP', () => {
  it('is served with a policy that allows this origin only, and its assets come from this server', async () => {
    const page = await fetch(`${s.url}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/(^|;)\s*default-src 'self'(;|$)/);
    const html = await page.text();
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(2);
    for (const ref of refs) {
      expect(ref, `${ref} is on this server`).toMatch(/^\/(?!\/)/);
      const asset = await fetch(s.url + ref);
      expect(asset.status, ref).toBe(200);
    }
  });

  it('serves only the renderer files the page uses', async () => {
    const demo = await fetch(`${s.url}/docs/assets/index.html`);
    expect(demo.status).toBe(404);
    expect(demo.headers.get('content-type')).toMatch(/problem\+json/);
  });
});

describe.skipIf(!chromiumPath)('/docs in Chromium', () => {
  let browser: Browser;
  let page: Page;
  const requests: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    browser = await launchBrowser();
    page = await browser.newPage();
    page.on('request', (r) => requests.push(r.url()));
    page.on('console', (m) => m.type() === 'error' && problems.push(`console: ${m.text()}`));
    page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await page.addInitScript({
      content: "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP blocked ' + e.blockedURI + ' (' + e.violatedDirective + ')'))",
    });
    await page.goto(`${s.url}/docs`, { waitUntil: 'load' });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('lists the operations', async () => {
    await page.locator('.opblock').first().waitFor({ state: 'visible', timeout: 30_000 });
    // the list is rendered as it scrolls into view: the first tags and their operations
    expect(await page.locator('.opblock').count()).toBeGreaterThan(3);
    expect(await page.locator('.opblock-summary-path').allInnerTexts()).toEqual(expect.arrayContaining(['/healthz', '/openapi.json']));
  });

  it("shows the HTTPRoute PUT's body schema: spec and its parentRefs", async () => {
    // a user narrows the list to one kind with the filter box
    await page.locator('input.operation-filter-input').fill('HTTPRoute');
    const put = page.locator('#operations-HTTPRoute-replaceNamespacedHTTPRoute');
    await put.waitFor({ state: 'visible', timeout: 15_000 });
    expect(await put.locator('.opblock-summary-path').innerText()).toBe('/api/v1/namespaces/{namespace}/httproutes/{name}');
    await put.locator('.opblock-summary').click();
    const body = put.locator('.opblock-section-request-body');
    await body.waitFor({ state: 'visible', timeout: 15_000 });
    await body.getByRole('tab', { name: 'Schema' }).click();
    const model = body.locator('.model-box').first();
    await model.waitFor({ state: 'visible', timeout: 15_000 });
    // opened three levels deep: spec, and in it the fields of HTTPRouteSpec (each name starts a line)
    await expect.poll(() => model.innerText(), { timeout: 15_000 }).toContain('The desired state of an HTTPRoute.');
    const text = await model.innerText();
    expect(text).toMatch(/^spec/m);
    expect(text).toMatch(/^parentRefs/m);
    expect(text).toMatch(/^hostnames/m);
  });

  it('loaded nothing from another origin and broke no rule of its policy', async () => {
    const origin = new URL(s.url).origin;
    expect(requests.length).toBeGreaterThan(3);
    expect(requests.filter((u) => !u.startsWith(origin + '/') && !u.startsWith('data:'))).toEqual([]);
    expect(problems).toEqual([]);
  });
});
