// `npm run bench:console`: the console's figures, against the service as `npm start` runs it (dist/,
// the console built into it) on the local PostgreSQL, in the machine's Chromium:
//   - the first load's bytes as the browser gets them compressed (the page, its script, its styles);
//   - a Gateway with 5,000 routes (a tenth refused): from navigation to its attachment view drawn, and
//     the frames while its list is scrolled end to end (and how many rows the page holds meanwhile);
//   - a change's way to the open view: a route written so that it is refused (or attached again), from
//     the write being sent to the view's count of refused routes showing it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BENCH_TOKEN, freshDatabase, percentile, report, startService } from './support';
import { chromiumPath, launchFreshProfile, NO_BROWSER_REASON } from '../test/support/browser';

const ROUTES = Number(process.env.BENCH_ROUTES ?? 5000);
const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 10);
const NAMESPACES = 20;
const GW = 'gateway.networking.k8s.io/v1';

if (!chromiumPath) {
  console.log(`bench:console skipped: ${NO_BROWSER_REASON}`);
  process.exit(0);
}

const dataDir = mkdtempSync(join(tmpdir(), 'sy-bench-console-'));
const db = await freshDatabase();
const svc = await startService({ DATABASE_URL: db.url, SWITCHYARD_DATA_DIR: dataDir, ACCESS_LOG: 'off', XDS_PORT: '0' });
const auth = { authorization: `Bearer ${BENCH_TOKEN}` };
const browser = await launchFreshProfile({ viewport: { width: 1280, height: 800 } });

interface Frames { p50: number; p95: number; max: number }
/** what the page's functions use of the browser (this project's types have no DOM) */
interface PageGlobals { document: { querySelector(selector: string): { getAttribute(name: string): string | null } | null } }

const route = (i: number, refused: boolean) => ({
  apiVersion: GW, kind: 'HTTPRoute', metadata: { name: `route-${i}`, namespace: `team-${i % NAMESPACES}` },
  // a hostname outside the listener's is refused (NoMatchingListenerHostname)
  spec: { parentRefs: [{ name: 'gw', namespace: 'big' }], hostnames: [refused ? `r${i}.elsewhere.example` : `r${i}.bench.example`], rules: [{ matches: [{ path: { type: 'PathPrefix', value: `/r${i}` } }], backendRefs: [{ name: 'svc', port: 80 }] }] },
});

try {
  // first load: what a browser that accepts br (Chromium does) downloads, and with gzip only
  for (const encoding of ['br', 'gzip']) {
    let bytes = 0;
    const page = await fetch(`${svc.url}/console/`, { headers: { 'accept-encoding': encoding } });
    const html = await page.text();
    bytes += Number(page.headers.get('content-length'));
    for (const [, ref] of html.matchAll(/(?:src|href)="([^"]+)"/g)) {
      const a = await fetch(svc.url + ref, { headers: { 'accept-encoding': encoding } });
      if (a.status !== 200 || a.headers.get('content-encoding') !== encoding) throw new Error(`${ref}: ${a.status} ${a.headers.get('content-encoding')}`);
      await a.arrayBuffer();
      bytes += Number(a.headers.get('content-length'));
    }
    report(`console first load (HTML, script, styles), ${encoding}`, bytes / 1024, 'KB', '<= 300 KB');
  }

  const items: unknown[] = [
    { apiVersion: GW, kind: 'Gateway', metadata: { name: 'gw', namespace: 'big' }, spec: { gatewayClassName: 'switchyard', listeners: [{ name: 'http', port: 80, protocol: 'HTTP', hostname: '*.bench.example', allowedRoutes: { namespaces: { from: 'All' } } }] } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'svc', namespace: 'big' }, spec: { ports: [{ port: 80 }] } },
  ];
  for (let i = 0; i < ROUTES; i++) items.push(route(i, i % 10 === 9));
  const applied = await fetch(`${svc.url}/api/v1/apply?wait=300`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ items }) });
  if (applied.status !== 200) throw new Error(`apply: ${applied.status} ${(await applied.text()).slice(0, 500)}`);

  const page = browser.context.pages()[0] ?? (await browser.context.newPage());
  // the moment the attachment view shows its rows, noted by the page itself (no polling from here)
  await page.addInitScript({
    content: `new MutationObserver((_, o) => {
      const s = document.querySelector('.attachments .summary');
      if (!s || !document.querySelector('.attachments .vrow')) return;
      window.__drawn ??= performance.now();
      if (s.getAttribute('data-complete') === 'true') { window.__complete = performance.now(); o.disconnect(); }
    }).observe(document, { subtree: true, childList: true, attributes: true });`,
  });
  await page.goto(`${svc.url}/console/`);
  await page.getByLabel('Bearer token').fill(BENCH_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('header .who').waitFor();

  // the longer scripts go as strings: the page runs them as written (tsx's helpers are not defined there)
  const drawn: number[] = [];
  const complete: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    await page.goto(`${svc.url}/console/gateways/big/gw`);
    await page.waitForFunction(() => (globalThis as unknown as { __complete?: number }).__complete !== undefined, undefined, { timeout: 60_000 });
    const summary = await page.locator('.attachments .summary').getAttribute('data-refused');
    if (Number(summary) !== ROUTES / 10) throw new Error(`the view shows ${summary} refused routes, not ${ROUTES / 10}`);
    const [d, c] = (await page.evaluate('[window.__drawn, window.__complete]')) as [number, number];
    drawn.push(d);
    complete.push(c);
  }
  drawn.sort((a, b) => a - b);
  complete.sort((a, b) => a - b);
  report(`console attachment view of ${ROUTES} routes, first rows drawn p50`, percentile(drawn, 50), 'ms', '<= 1000 ms');
  report(`console attachment view of ${ROUTES} routes, first rows drawn max`, drawn.at(-1)!, 'ms', '<= 1000 ms');
  report(`console attachment view of ${ROUTES} routes, all ${ROUTES} in p50`, percentile(complete, 50), 'ms', '<= 1000 ms');
  report(`console attachment view of ${ROUTES} routes, all ${ROUTES} in max`, complete.at(-1)!, 'ms', '<= 1000 ms');

  // scrolling, timed by the page: a row a frame, then a whole screen a frame from top to bottom (the
  // worst case: every row new), and the frames of the same page left alone (what the machine gives)
  const scroll = (await page.evaluate(`(async () => {
    const list = document.querySelector('.attachments .vlist');
    let rows = 0;
    const frames = async (n, step) => {
      const f = [];
      let last = performance.now();
      for (let i = 0; i < n && (!step || list.scrollTop + list.clientHeight < list.scrollHeight - 1); i++) {
        if (step) step();
        await new Promise((r) => requestAnimationFrame(r));
        const now = performance.now();
        f.push(now - last);
        last = now;
        rows = Math.max(rows, list.querySelectorAll('.vrow').length);
      }
      f.sort((a, b) => a - b);
      return { p50: f[Math.floor(f.length / 2)], p95: f[Math.ceil(f.length * 0.95) - 1], max: f[f.length - 1] };
    };
    const idle = await frames(120);
    const row = await frames(300, () => { list.scrollTop += 64; });
    list.scrollTop = 0;
    const screen = await frames(100000, () => { list.scrollTop += list.clientHeight; });
    list.scrollTop = 0;
    return { idle, row, screen, rows };
  })()`)) as { idle: Frames; row: Frames; screen: Frames; rows: number };
  report('console frames of the page left alone, p95', scroll.idle.p95, 'ms', 'informational (what this machine gives)');
  report(`console scroll a row a frame through ${ROUTES} routes, frame p95`, scroll.row.p95, 'ms', '<= 16.7 ms (60 frames/s)');
  report(`console scroll a screen a frame through ${ROUTES} routes, frame p50`, scroll.screen.p50, 'ms', '<= 16.7 ms (60 frames/s)');
  report(`console scroll a screen a frame through ${ROUTES} routes, frame p95`, scroll.screen.p95, 'ms', 'informational');
  report(`console rows in the page while scrolling ${ROUTES} routes`, scroll.rows, 'rows', 'informational (virtualized: a screen and a margin)');

  // a change to the open view: route-0 refused, then attached again, and so on
  const latencies: number[] = [];
  let refusedNow = ROUTES / 10;
  for (let c = 0; c < CHANGES; c++) {
    const refuse = c % 2 === 0;
    refusedNow += refuse ? 1 : -1;
    const wait = page.waitForFunction(
      (n) => Number((globalThis as unknown as PageGlobals).document.querySelector('.attachments .summary')?.getAttribute('data-refused')) === n && Date.now(),
      refusedNow,
      { timeout: 30_000, polling: 'raf' },
    );
    const t0 = Date.now();
    const put = await fetch(`${svc.url}/api/v1/namespaces/team-0/httproutes/route-0`, { method: 'PUT', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(route(0, refuse)) });
    if (put.status !== 200) throw new Error(`PUT: ${put.status} ${await put.text()}`);
    const seen = (await (await wait).jsonValue()) as number;
    latencies.push(seen - t0);
  }
  latencies.sort((a, b) => a - b);
  report(`console change to the open ${ROUTES}-route view (write, recompute, stream, render) p50`, percentile(latencies, 50), 'ms', '<= 1000 ms');
  report(`console change to the open ${ROUTES}-route view max`, latencies.at(-1)!, 'ms', '<= 1000 ms');
} finally {
  await browser.close();
  await svc.stop();
  await db.drop();
}
