// `npm run bench:kube`: the Kubernetes API at scale, against the service as its own process (API and
// worker, as `npm start`) on the local PostgreSQL.
//   - `kubectl get httproutes -A` over 10,000 HTTPRoutes (kubectl's own paging, 500 a page, Table
//     output), wall time of the command and the service's CPU time for it;
//   - a change's way to a Kubernetes watch (?watch=true) and to the events feed (SSE), measured from
//     the write being sent to the event arriving, on both at once for the same writes.
// kubectl missing: the first part is skipped, saying so.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import http from 'node:http';
import { BENCH_TOKEN, cpuMs, freshDatabase, percentile, report, startService } from './support';
import { kubeconfig } from '../src/core/kube/kubeconfig';

const ROUTES = Number(process.env.BENCH_ROUTES ?? 10_000);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 100);
const GW = 'gateway.networking.k8s.io';
const NAMESPACES = 20;


/**
 * The time client-go's rate limiter held kubectl's requests, from its -v=3 lines: "Waited for 1.2s
 * due to client-side throttling" (older) or `"Waited before sending request" delay="1.2s"` (newer).
 */
function clientThrottleMs(stderr: string): number {
  let ms = 0;
  for (const m of stderr.matchAll(/(?:Waited for |delay=")([\d.]+)(ms|µs|s)\b/g)) {
    ms += Number(m[1]) * (m[2] === 's' ? 1000 : m[2] === 'ms' ? 1 : 0.001);
  }
  return ms;
}

const dataDir = mkdtempSync(join(tmpdir(), 'sy-bench-kube-'));
const db = await freshDatabase();
const svc = await startService({ DATABASE_URL: db.url, SWITCHYARD_DATA_DIR: dataDir, ACCESS_LOG: 'off' });
const pid = svc.child.pid!;
const auth = { authorization: `Bearer ${BENCH_TOKEN}` };

try {
  // the routes, in one apply
  const items = [];
  for (let i = 0; i < ROUTES; i++) {
    items.push({
      apiVersion: `${GW}/v1`, kind: 'HTTPRoute', metadata: { name: `route-${i}`, namespace: `team-${i % NAMESPACES}` },
      spec: { parentRefs: [{ name: 'gw' }], hostnames: [`r${i}.example.com`], rules: [{ backendRefs: [{ name: 'svc', port: 80 }] }] },
    });
  }
  const applied = await fetch(`${svc.url}/api/v1/apply`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ items }) });
  if (applied.status !== 200) throw new Error(`apply: ${applied.status} ${(await applied.text()).slice(0, 500)}`);

  const kubectl = spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' });
  if (kubectl.error || kubectl.status !== 0) {
    console.log('kubectl get httproutes -A: skipped (kubectl not found)');
  } else {
    const home = mkdtempSync(join(tmpdir(), 'sy-bench-kubectl-'));
    const file = join(home, 'kubeconfig');
    writeFileSync(file, kubeconfig(svc.url.replace('http://', 'https://') + '/k8s', 'admin', BENCH_TOKEN, readFileSync(join(dataDir, 'kube-tls.crt'), 'utf8')), { mode: 0o600 });
    const env = { ...process.env, KUBECONFIG: file, HOME: home };
    // the first run fills kubectl's discovery cache, as any session after the first has it
    spawnSync('kubectl', ['get', 'httproutes', '-A', '--no-headers'], { env, encoding: 'utf8', maxBuffer: 256 << 20 });
    const walls: number[] = [];
    const cpus: number[] = [];
    const clientCpus: number[] = [];
    let lines = 0;
    const timeFile = join(home, 'time');
    for (let run = 0; run < 5; run++) {
      const c0 = cpuMs(pid);
      const t0 = performance.now();
      // /usr/bin/time for kubectl's own CPU: on a loaded machine the wall time is mostly waiting
      const r = spawnSync('/usr/bin/time', ['-f', '%U %S', '-o', timeFile, 'kubectl', 'get', 'httproutes', '-A', '--no-headers'], { env, encoding: 'utf8', maxBuffer: 256 << 20 });
      walls.push(performance.now() - t0);
      cpus.push(cpuMs(pid) - c0);
      if (r.status !== 0) throw new Error(`kubectl: ${r.stderr}`);
      const [u, sy] = readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number);
      clientCpus.push((u + sy) * 1000);
      lines = r.stdout.trim().split('\n').length;
    }
    if (lines !== ROUTES) throw new Error(`kubectl printed ${lines} routes, not ${ROUTES}`);
    walls.sort((a, b) => a - b);
    cpus.sort((a, b) => a - b);
    report(`kubectl get httproutes -A (${ROUTES} routes) p50`, percentile(walls, 50) / 1000, 's', '< 2 s');
    report(`kubectl get httproutes -A (${ROUTES} routes) max`, walls.at(-1)! / 1000, 's', '< 2 s');
    clientCpus.sort((a, b) => a - b);
    report('kubectl get httproutes -A, service CPU p50', percentile(cpus, 50), 'ms', 'informational');
    report('kubectl get httproutes -A, kubectl CPU p50', percentile(clientCpus, 50), 'ms', 'informational');
    // kubectl reads a list in pages of 500 through client-go's own rate limiter (5 requests a second
    // once a burst of 10 is spent): 20 pages wait about 2 s there, whatever the server. One page shows
    // what the server and kubectl take without that wait.
    const whole: number[] = [];
    for (let run = 0; run < 5; run++) {
      const t0 = performance.now();
      const r = spawnSync('kubectl', ['get', 'httproutes', '-A', '--no-headers', '--chunk-size=0'], { env, encoding: 'utf8', maxBuffer: 256 << 20 });
      whole.push(performance.now() - t0);
      if (r.status !== 0) throw new Error(`kubectl: ${r.stderr}`);
    }
    whole.sort((a, b) => a - b);
    report(`kubectl get httproutes -A --chunk-size=0 (${ROUTES} routes) p50`, percentile(whole, 50) / 1000, 's', '< 2 s');
    // the same paged command, with client-go saying (at -v=3) how long each page waited for its own
    // rate limiter: the wall time less those waits is what the server and kubectl's work take
    const waits: number[] = [];
    const unthrottled: number[] = [];
    for (let run = 0; run < 5; run++) {
      const t0 = performance.now();
      const r = spawnSync('kubectl', ['get', 'httproutes', '-A', '--no-headers', '-v=3'], { env, encoding: 'utf8', maxBuffer: 256 << 20 });
      const wall = performance.now() - t0;
      if (r.status !== 0) throw new Error(`kubectl: ${r.stderr}`);
      const waited = clientThrottleMs(r.stderr);
      waits.push(waited);
      unthrottled.push(wall - waited);
    }
    waits.sort((a, b) => a - b);
    unthrottled.sort((a, b) => a - b);
    report('kubectl get httproutes -A, waits in client-go\'s rate limiter p50', percentile(waits, 50) / 1000, 's', 'informational');
    report(`kubectl get httproutes -A (${ROUTES} routes) less client-go's rate-limit waits p50`, percentile(unthrottled, 50) / 1000, 's', '< 2 s');
  }

  // a change to the watch and to the feed
  const arrivals = { watch: new Map<string, number>(), feed: new Map<string, number>() };
  const list = await (await fetch(`${svc.url}/apis/${GW}/v1/namespaces/team-0/httproutes?limit=1`, { headers: auth })).json() as { metadata: { resourceVersion: string } };
  const streams: http.ClientRequest[] = [];
  const open = (path: string, onLine: (line: string) => void, accept?: string) => new Promise<void>((resolve, reject) => {
    const req = http.get(`${svc.url}${path}`, { headers: { ...auth, ...(accept ? { accept } : {}) } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`${path}: ${res.statusCode}`));
      let buf = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => {
        buf += d;
        let nl;
        while ((nl = buf.indexOf('\n')) >= 0) {
          onLine(buf.slice(0, nl));
          buf = buf.slice(nl + 1);
        }
      });
      resolve();
    });
    req.on('error', reject);
    streams.push(req);
  });
  const marker = (o: { metadata?: { labels?: Record<string, string> } }) => o?.metadata?.labels?.change;
  await open(`/apis/${GW}/v1/namespaces/team-0/httproutes?watch=true&resourceVersion=${list.metadata.resourceVersion}`, (line) => {
    const ev = JSON.parse(line);
    const m = marker(ev.object);
    if (m && !arrivals.watch.has(m)) arrivals.watch.set(m, performance.now());
  });
  await open('/api/v1/events/watch?kind=HTTPRoute&namespace=team-0', (line) => {
    if (!line.startsWith('data: ')) return;
    const m = marker(JSON.parse(line.slice(6)).object);
    if (m && !arrivals.feed.has(m)) arrivals.feed.set(m, performance.now());
  }, 'text/event-stream');
  await new Promise((r) => setTimeout(r, 500));
  const sent = new Map<string, number>();
  for (let i = 0; i < CHANGES; i++) {
    const m = `c${i}`;
    sent.set(m, performance.now());
    const r = await fetch(`${svc.url}/apis/${GW}/v1/namespaces/team-0/httproutes/route-0`, {
      method: 'PATCH', headers: { ...auth, 'content-type': 'application/merge-patch+json' }, body: JSON.stringify({ metadata: { labels: { change: m } } }),
    });
    if (r.status !== 200) throw new Error(`patch: ${r.status} ${await r.text()}`);
    await r.text();
    const deadline = performance.now() + 10_000;
    while ((!arrivals.watch.has(m) || !arrivals.feed.has(m)) && performance.now() < deadline) await new Promise((res) => setTimeout(res, 1));
  }
  for (const s of streams) s.destroy();
  const lat = (which: 'watch' | 'feed') => [...sent].map(([m, t]) => (arrivals[which].get(m) ?? NaN) - t).filter(Number.isFinite).sort((a, b) => a - b);
  const watch = lat('watch');
  const feed = lat('feed');
  if (watch.length !== CHANGES || feed.length !== CHANGES) throw new Error(`changes seen: watch ${watch.length}, feed ${feed.length} of ${CHANGES}`);
  report('change to Kubernetes watch p50', percentile(watch, 50), 'ms', 'as fast as the events feed');
  report('change to Kubernetes watch p99', percentile(watch, 99), 'ms', 'as fast as the events feed');
  report('change to events feed p50', percentile(feed, 50), 'ms', 'informational');
  report('change to events feed p99', percentile(feed, 99), 'ms', 'informational');
} finally {
  await svc.stop();
  await db.drop();
}
