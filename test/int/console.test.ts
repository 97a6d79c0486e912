// The console at /console in a real browser (Debian's Chromium, driven by playwright-core): sign in,
// the quickstart's attachments, a namespace admitted and refused on a listener while the route
// attaches and detaches live, the request tester, a diff of two versions, a live change and a lost
// stream, a developer's token seeing its own namespaces only, a phone's width, the keyboard. Each
// view's screenshot is written under scratch/screenshots/console.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BrowserContext, Page } from 'playwright-core';
import { ADMIN_TOKEN, mintToken, startTestServer, type TestServer } from '../support/server';
import { chromiumPath, launchFreshProfile, NO_BROWSER_REASON } from '../support/browser';
import { applyYaml, consoleBuilt, quickstartYaml, screenshot, signIn, TEAM_B_ROUTE } from '../support/console';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

if (!chromiumPath) console.log(`skipped: the console in a browser (${NO_BROWSER_REASON})`);

let s: TestServer;
beforeAll(async () => {
  await consoleBuilt();
  // the class the quickstart's Gateway names is created at start, as on a first `npm start`
  s = await startTestServer({ defaultGatewayClass: 'switchyard' });
});
afterAll(async () => {
  await s?.close();
});

describe('/console over HTTP', () => {
  it('answers the page under every console path, with a strict policy, and its assets from this server', async () => {
    for (const path of ['/console', '/console/', '/console/gateways/shop/shop-gateway', '/console/objects/HTTPRoute/shop/api?from=1&to=2']) {
      const page = await fetch(s.url + path);
      expect(page.status, path).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toMatch(/(^|; )default-src 'none'(;|$)/);
      expect(csp).toMatch(/(^|; )script-src 'self'(;|$)/);
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
    }
    const html = await (await fetch(`${s.url}/console/`)).text();
    expect(html).not.toMatch(/<script>(?!<\/script>)|<style>/);
    const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThanOrEqual(2);
    for (const ref of refs) {
      expect(ref, `${ref} is on this server`).toMatch(/^\/console\/assets\//);
      const a = await fetch(s.url + ref, { headers: { 'accept-encoding': 'gzip' } });
      expect(a.status, ref).toBe(200);
      expect(a.headers.get('content-encoding')).toBe('gzip');
    }
  });

  it('answers 404 in words for an asset it does not have', async () => {
    const r = await fetch(`${s.url}/console/assets/nothing.js`);
    expect(r.status).toBe(404);
    expect(((await r.json()) as { detail: string }).detail).toMatch(/no asset nothing\.js/);
  });
});

describe.skipIf(!chromiumPath)('/console in Chromium', () => {
  let browser: { context: BrowserContext; close: () => Promise<void> };
  let page: Page;
  const foreign: string[] = [];
  const problems: string[] = [];

  const watch = async (p: Page) => {
    const origin = new URL(s.url).origin;
    p.on('request', (r) => !r.url().startsWith(`${origin}/`) && !r.url().startsWith('data:') && foreign.push(r.url()));
    p.on('console', (m) => m.type() === 'error' && !/status of (401|403|404)/.test(m.text()) && problems.push(`console: ${m.text()}`));
    p.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
    await p.addInitScript({ content: "document.addEventListener('securitypolicyviolation', (e) => console.error('CSP blocked ' + e.blockedURI + ' (' + e.violatedDirective + ')'))" });
  };
  const row = (route: string) => page.locator(`.att[data-route="${route}"]`);

  beforeAll(async () => {
    browser = await launchFreshProfile();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    await watch(page);
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('refuses an unknown token in words, signs in, says how to start, and lists the quickstart\'s Gateway once applied', async () => {
    await page.goto(`${s.url}/console/`);
    await page.getByLabel('Bearer token').fill('not-a-token');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByRole('alert').innerText()).toMatch(/unknown, revoked or expired/);
    await page.getByLabel('Bearer token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // nothing on the server yet: the way to start
    const empty = page.getByRole('region', { name: 'No Gateway yet' });
    await empty.waitFor();
    expect(await empty.innerText()).toContain('npx switchyard apply -f examples/quickstart --wait 30s');
    await screenshot(page, 'empty');
    await applyYaml(s.url, quickstartYaml());
    await applyYaml(s.url, TEAM_B_ROUTE);
    // the Gateway appears without a reload
    await page.getByRole('link', { name: 'shop/shop-gateway' }).waitFor({ timeout: 15_000 });
    expect(await page.locator('header .who').innerText()).toMatch(/admin/);
    // the token is the tab's: in session storage, nowhere longer-lived
    expect(await page.evaluate('[Object.keys(sessionStorage).sort(), localStorage.length, document.cookie]')).toEqual([['switchyard.token', 'switchyard.who'], 0, '']);
    await screenshot(page, 'gateways');
  });

  it("shows the quickstart's attachments and team-b's refusal with the reason and the fix", async () => {
    await page.getByRole('link', { name: 'shop/shop-gateway' }).click();
    expect(new URL(page.url()).pathname).toBe('/console/gateways/shop/shop-gateway');
    await row('shop/api').waitFor();
    expect(await row('shop/api').getAttribute('data-state')).toBe('attached');
    expect(await row('shop/storefront').getAttribute('data-state')).toBe('attached');
    expect(await row('team-b/admin').getAttribute('data-state')).toBe('refused');
    expect(await row('team-b/admin').innerText()).toMatch(/NotAllowedByListeners[\s\S]*does not admit routes from namespace "team-b"/);
    const listener = page.locator('tr[data-listener="http"]');
    expect(await listener.innerText()).toMatch(/80\s+HTTP\s+\*\.shop\.example/);
    expect(await listener.locator('td[data-attached]').innerText()).toBe('2');
    await row('team-b/admin').click();
    const detail = page.getByRole('region', { name: 'Selected route' });
    expect(await detail.innerText()).toMatch(/What would fix it: Let a listener of shop\/shop-gateway admit routes from namespace "team-b"/);
    await screenshot(page, 'attachments');
  });

  it('admits team-b on the listener and the same route attaches; refuses it and the route detaches, without a reload', async () => {
    const marker = await page.evaluate('window.marker = Math.random()');
    await page.getByRole('button', { name: 'Admit namespace team-b on listener http' }).click();
    await expect.poll(() => row('team-b/admin').getAttribute('data-state'), { timeout: 20_000 }).toBe('attached');
    await expect.poll(() => page.locator('tr[data-listener="http"] td[data-attached]').innerText(), { timeout: 20_000 }).toBe('3');
    expect(await page.locator('tr[data-listener="http"]').innerText()).toMatch(/namespaces shop, team-b/);
    await screenshot(page, 'attachments-admitted');
    await page.getByRole('button', { name: 'Stop admitting team-b' }).click();
    await expect.poll(() => row('team-b/admin').getAttribute('data-state'), { timeout: 20_000 }).toBe('refused');
    await expect.poll(() => page.locator('tr[data-listener="http"] td[data-attached]').innerText(), { timeout: 20_000 }).toBe('2');
    // the same document all along: the changes came over the live stream
    expect(await page.evaluate('window.marker')).toBe(marker);
    const gw = await s.api('GET', '/api/v1/namespaces/shop/gateways/shop-gateway');
    expect(gw.body.spec.listeners[0].allowedRoutes.namespaces.from).toBe('Same');
  });

  it('shows the proxies that serve the Gateway and whether each is in sync', async () => {
    const proxy = mintToken(s, { name: 'edge-proxy', role: 'proxy', gateways: ['shop/shop-gateway'] });
    const snap = await s.api('GET', '/api/v1/namespaces/shop/gateways/shop-gateway/snapshot');
    const report = async (id: string, body: unknown) => {
      const r = await fetch(`${s.url}/api/v1/namespaces/shop/gateways/shop-gateway/proxies/${id}`, { method: 'PUT', headers: { authorization: `Bearer ${await proxy}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(r.status, await r.text()).toBe(200);
    };
    await report('edge-1', { version: snap.body.version, hash: snap.body.hash });
    await report('edge-2', { version: null, hash: null, error: 'listener port 80: address already in use' });
    const table = page.locator('table.proxies');
    // the reports are asked for every few seconds
    await table.locator('tr', { hasText: 'edge-2' }).waitFor({ timeout: 15_000 });
    expect(await table.locator('tr', { hasText: 'edge-1' }).innerText()).toMatch(/snapshot proxy\s+\d+\s+in sync/);
    expect(await table.locator('tr', { hasText: 'edge-2' }).innerText()).toMatch(/serves no snapshot yet \(NOT_SENT\) — listener port 80: address already in use/);
  });

  it('moves through the attachments with the keyboard', async () => {
    await page.locator('.vrow').first().focus();
    await page.keyboard.press('End');
    await expect.poll(() => page.evaluate("document.activeElement?.getAttribute('data-index')")).toBe('2');
    await page.keyboard.press('Home');
    await expect.poll(() => page.evaluate("document.activeElement?.getAttribute('data-index')")).toBe('0');
    await page.keyboard.press('ArrowDown');
    await expect.poll(() => page.evaluate("document.activeElement?.getAttribute('data-index')")).toBe('1');
    // the focused row is the one the details speak of
    const focused = (await page.evaluate("document.activeElement?.querySelector('.att')?.getAttribute('data-route')")) as string;
    expect(await page.getByRole('region', { name: 'Selected route' }).innerText()).toContain(focused);
  });

  it('says a cross-namespace backend needs a ReferenceGrant, and the warning goes when one is made', async () => {
    await applyYaml(s.url, `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: cross, namespace: shop }
spec:
  parentRefs: [{ name: shop-gateway }]
  hostnames: [cross.shop.example]
  rules: [{ backendRefs: [{ name: admin, namespace: team-b, port: 8080 }] }]
`);
    await expect.poll(() => row('shop/cross').locator('.badge.warn').count(), { timeout: 15_000 }).toBe(1);
    await row('shop/cross').click();
    const detail = page.getByRole('region', { name: 'Selected route' });
    expect(await detail.innerText()).toMatch(/Unresolved reference \(RefNotPermitted\):[\s\S]*A ReferenceGrant is missing: in team-b, one that lets HTTPRoutes from namespace "shop" refer to Services/);
    await applyYaml(s.url, `apiVersion: gateway.networking.k8s.io/v1
kind: ReferenceGrant
metadata: { name: from-shop, namespace: team-b }
spec:
  from: [{ group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: shop }]
  to: [{ group: "", kind: Service }]
`);
    await expect.poll(() => row('shop/cross').locator('.badge.warn').count(), { timeout: 15_000 }).toBe(0);
    await s.api('DELETE', '/api/v1/namespaces/shop/httproutes/cross');
    await expect.poll(() => row('shop/cross').count(), { timeout: 15_000 }).toBe(0);
  });

  it("says why a Gateway of another class, and a route on it, have no status: the controller's explanation", async () => {
    await applyYaml(s.url, `${readFileSync(join(ROOT, 'examples/upstream/gateway.yaml'), 'utf8')}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: web, namespace: shop }
spec:
  parentRefs: [{ name: prod-web }]
  rules: [{ backendRefs: [{ name: storefront, port: 8080 }] }]
`);
    await page.goto(`${s.url}/console/gateways/shop/prod-web`);
    await expect.poll(() => page.locator('article').innerText()).toMatch(/GatewayClassNotFound: The Gateway names GatewayClass "example", which does not exist/);
    await row('shop/web').click();
    expect(await row('shop/web').getAttribute('data-state')).toBe('pending');
    await expect.poll(() => page.getByRole('region', { name: 'Selected route' }).innerText()).toMatch(/The controller's explanation:[\s\S]*prod-web/);
    await screenshot(page, 'no-status');
    await s.api('DELETE', '/api/v1/namespaces/shop/httproutes/web');
    await s.api('DELETE', '/api/v1/namespaces/shop/gateways/prod-web');
    await page.goto(`${s.url}/console/gateways/shop/shop-gateway`);
    await row('shop/api').waitFor();
  });

  it('runs the tester: the winner, the ladder step, the loser and why, the unattached better match, the 90:10 split', async () => {
    await page.getByRole('link', { name: 'Test a request' }).click();
    await page.getByLabel('Host').fill('www.shop.example');
    await page.getByLabel('Path').fill('/api/admin/reset');
    await page.getByRole('button', { name: 'Resolve' }).click();
    const answer = page.locator('section.answer');
    await answer.waitFor();
    expect(await answer.getAttribute('data-decided-by')).toBe('prefixLength');
    const text = await answer.innerText();
    expect(text).toMatch(/Winner: HTTPRoute shop\/api, rule 0/);
    expect(text).toMatch(/prefixLength the longest path prefix ← decided here/);
    expect(text).toMatch(/HTTPRoute shop\/storefront rule 0 lost at prefixLength/);
    expect(text).toMatch(/HTTPRoute team-b\/admin would match better, but is not attached: NotAllowedByListeners/);
    expect(text).toMatch(/shop\/api:8080 — weight 90, 90%/);
    expect(text).toMatch(/shop\/api-canary:8080 — weight 10, 10%/);
    // the split as proxies make it: requests drawn with the proxy's own weighted choice, counted
    await page.getByRole('button', { name: 'Sample 1,000 requests' }).click();
    const counts = (await answer.locator('.sampled').evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-count'))))) as number[];
    expect(counts.reduce((a, b) => a + b, 0)).toBe(1000);
    // about 900 and 100: a binomial's five standard deviations either side
    expect(counts[0]).toBeGreaterThan(850);
    expect(counts[0]).toBeLessThan(950);
    // the request is in the address: the link opens the same answer
    const shared = page.url();
    expect(shared).toMatch(/\/console\/gateways\/shop\/shop-gateway\/tester\?host=www\.shop\.example&path=%2Fapi%2Fadmin%2Freset/);
    await screenshot(page, 'tester');
    await page.goto(shared);
    await page.locator('section.answer').waitFor();
    expect(await page.locator('section.answer').innerText()).toMatch(/Winner: HTTPRoute shop\/api/);
  });

  it('opens a diff between two versions of a route', async () => {
    const patched = await s.api('PATCH', '/api/v1/namespaces/shop/httproutes/api', { spec: { rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/api' } }], backendRefs: [{ name: 'api', port: 8080, weight: 80 }, { name: 'api-canary', port: 8080, weight: 20 }] }] } });
    expect(patched.status).toBe(200);
    await page.goto(`${s.url}/console/objects/HTTPRoute/shop/api`);
    await page.getByRole('table').locator('tbody tr').nth(1).waitFor();
    expect(await page.getByRole('table').innerText()).toMatch(/1\s+Created\s+admin[\s\S]*2\s+Updated\s+admin/);
    await page.getByLabel('Compare version').selectOption('1');
    await page.getByLabel('with').selectOption('2');
    await page.getByRole('button', { name: 'Show the diff' }).click();
    const diff = page.locator('pre.diff');
    await diff.waitFor();
    expect(new URL(page.url()).search).toBe('?from=1&to=2');
    const text = await diff.innerText();
    expect(text).toMatch(/^--- HTTPRoute shop\/api version 1\n\+\+\+ HTTPRoute shop\/api version 2$/m);
    expect(text).toMatch(/^-\s+weight: 90$/m);
    expect(text).toMatch(/^\+\s+weight: 80$/m);
    await screenshot(page, 'history-diff');
    // one version as it was: an address of its own
    await page.getByRole('link', { name: '1', exact: true }).click();
    await page.locator('pre.yaml').waitFor();
    expect(await page.locator('pre.yaml').innerText()).toMatch(/weight: 90/);
  });

  it('shows a change made elsewhere without a reload, and says when it lost the stream', async () => {
    await page.getByRole('link', { name: 'Live changes' }).click();
    await expect.poll(() => page.locator('.stream').getAttribute('data-stream')).toBe('live');
    await applyYaml(s.url, `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: { name: blog, namespace: shop }
spec:
  parentRefs: [{ name: shop-gateway }]
  hostnames: [blog.shop.example]
  rules: [{ backendRefs: [{ name: storefront, port: 8080 }] }]
`);
    const item = page.locator('.feed li[data-kind="HTTPRoute"][data-name="blog"]', { hasText: 'Created' });
    await item.waitFor({ timeout: 10_000 });
    expect(await item.innerText()).toMatch(/Created HTTPRoute shop\/blog version 1 by admin/);
    await screenshot(page, 'live');
    // the server ends every event stream (as a restart would): the console says so, then resumes
    for (const res of s.running.ctx.sse) res.end();
    await expect.poll(() => page.locator('.stream').getAttribute('data-stream'), { timeout: 10_000, interval: 50 }).toBe('lost');
    expect(await page.locator('.stream').innerText()).toMatch(/Lost the live stream/);
    await expect.poll(() => page.locator('.stream').getAttribute('data-stream'), { timeout: 15_000 }).toBe('live');
  });

  it('is readable at a phone\u2019s width: no sideways scrolling of the page', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    for (const [name, path] of [['phone-gateway', '/console/gateways/shop/shop-gateway'], ['phone-tester', '/console/gateways/shop/shop-gateway/tester?host=www.shop.example&path=%2Fapi']] as const) {
      await page.goto(s.url + path);
      await page.locator(name === 'phone-gateway' ? '.att' : 'section.answer').first().waitFor();
      expect(await page.evaluate('document.documentElement.scrollWidth'), name).toBeLessThanOrEqual(390);
      await screenshot(page, name);
    }
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('shows a developer of team-b only what its token may read', async () => {
    const token = await mintToken(s, { name: 'team-b-dev', role: 'developer', namespaces: ['team-b'] });
    const dev = await browser.context.newPage();
    await watch(dev);
    await signIn(dev, s.url, token, '/console/gateways/shop/shop-gateway');
    expect(await dev.locator('header .who').innerText()).toMatch(/team-b-dev \(developer in team-b\)/);
    await dev.locator('.att').first().waitFor();
    const routes = await dev.locator('.att').evaluateAll((els) => els.map((e) => e.getAttribute('data-route')));
    expect(routes).toEqual(['team-b/admin']);
    // a developer may not change the Gateway: the console does not offer it, and says who may
    await dev.locator('.att').first().click();
    expect(await dev.getByRole('button', { name: /Admit namespace/ }).count()).toBe(0);
    expect(await dev.getByRole('region', { name: 'Selected route' }).innerText()).toMatch(/may not change the Gateway/);
    // shop's routes are not this token's to read: named in words, not linked
    await dev.goto(`${s.url}/console/gateways/shop/shop-gateway/tester?host=www.shop.example&path=%2Fapi%2Fadmin`);
    await dev.locator('section.answer').waitFor();
    const answer = await dev.locator('section.answer').innerText();
    expect(answer).toMatch(/Winner: an HTTPRoute in another namespace, rule 0/);
    expect(answer).toMatch(/a Service in another namespace \(port 8080\) — weight 80, 80%/);
    expect(answer).not.toMatch(/shop\/api\b/);
    await screenshot(dev, 'developer');
    await dev.goto(`${s.url}/console/objects/HTTPRoute/shop/api`);
    await expect.poll(() => dev.getByRole('alert').first().innerText()).toMatch(/may not see or do this/);
    await dev.close();
  });

  it('loaded nothing from another origin and broke no rule of its policy', () => {
    expect(foreign).toEqual([]);
    expect(problems).toEqual([]);
  });
});
