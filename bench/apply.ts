// `npm run bench:apply`: one GitOps manifest of 5,000 objects (Gateways, HTTPRoutes, Services,
// EndpointSlices) posted as multi-document YAML to the service running as its own process (API and
// worker, as `npm start`) against the local PostgreSQL. Times the first apply, the unchanged
// re-apply (and counts the events it wrote), and a change to one object with prune.
import { stringify } from 'yaml';
import { BENCH_TOKEN, freshDatabase, report, startService } from './support';
import { openDatabase } from '../src/adapters/store/database';
import { caughtUp } from '../src/adapters/store/checkpoints';

const TOTAL = Number(process.env.BENCH_OBJECTS ?? 5000);
const NAMESPACES = 10;
const GW = 'gateway.networking.k8s.io/v1';

function manifest(variant: { changed?: string; drop?: string } = {}): string {
  const objs: object[] = [{ apiVersion: GW, kind: 'GatewayClass', metadata: { name: 'bench' }, spec: { controllerName: 'switchyard.dev/gateway-controller' } }];
  const gateways = 49;
  for (let g = 0; g < gateways; g++) {
    const ns = `bench-${g % NAMESPACES}`;
    objs.push({
      apiVersion: GW, kind: 'Gateway', metadata: { name: `gw-${g}`, namespace: ns },
      spec: { gatewayClassName: 'bench', listeners: [{ name: 'http', port: 80, protocol: 'HTTP', hostname: `*.gw${g}.example.com` }] },
    });
  }
  const apps = Math.floor((TOTAL - objs.length) / 3);
  for (let i = 0; i < apps; i++) {
    const ns = `bench-${i % NAMESPACES}`;
    const gw = `gw-${(i % NAMESPACES) + NAMESPACES * (Math.floor(i / NAMESPACES) % 4)}`; // a Gateway of the route's namespace
    const name = `app-${i}`;
    const port = 8080;
    objs.push({
      apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: ns, labels: { app: name } },
      spec: { ports: [{ name: 'http', port: 80, targetPort: port }] },
    });
    objs.push({
      apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
      metadata: { name: `${name}-abc12`, namespace: ns, labels: { 'kubernetes.io/service-name': name } },
      addressType: 'IPv4', ports: [{ name: 'http', port }],
      endpoints: [{ addresses: [`10.${i % 250}.${Math.floor(i / 250) % 250}.1`] }, { addresses: [`10.${i % 250}.${Math.floor(i / 250) % 250}.2`] }],
    });
    if (variant.drop === name) continue;
    objs.push({
      apiVersion: GW, kind: 'HTTPRoute', metadata: { name, namespace: ns },
      spec: {
        parentRefs: [{ name: gw }],
        hostnames: [`${name}.${gw.replace('-', '')}.example.com`],
        rules: [{ matches: [{ path: { type: 'PathPrefix', value: variant.changed === name ? `/${name}/v2` : `/${name}` } }], backendRefs: [{ name, port: 80 }] }],
      },
    });
  }
  while (objs.length < TOTAL - (variant.drop ? 1 : 0)) objs.push({ apiVersion: 'v1', kind: 'Service', metadata: { name: `pad-${objs.length}`, namespace: 'bench-0' }, spec: { ports: [{ port: 80 }] } });
  return objs.map((o) => stringify(o)).join('---\n');
}

const db = await freshDatabase();
const svc = await startService({ DATABASE_URL: db.url });
const store = await openDatabase({ url: db.url, poolSize: 2 });
const headers = { authorization: `Bearer ${BENCH_TOKEN}`, 'content-type': 'application/yaml' };

async function post(body: string, query: string): Promise<{ seconds: number; actions: Record<string, number> }> {
  const t0 = performance.now();
  const res = await fetch(`${svc.url}/api/v1/apply?${query}`, { method: 'POST', headers, body });
  const text = await res.text();
  const seconds = (performance.now() - t0) / 1000;
  if (res.status !== 200) throw new Error(`apply failed: ${res.status} ${text.slice(0, 2000)}`);
  const actions: Record<string, number> = {};
  for (const r of JSON.parse(text).results) actions[r.action] = (actions[r.action] ?? 0) + 1;
  return { seconds, actions };
}

async function events(): Promise<number> {
  const rows = await store.prisma.$queryRawUnsafe<{ n: number }[]>('SELECT count(*)::int AS n FROM events');
  return Number(rows[0].n);
}

async function settle(): Promise<number> {
  const t0 = performance.now();
  const [{ p }] = await store.prisma.$queryRawUnsafe<{ p: number | null }[]>('SELECT max(position) AS p FROM events');
  while (!(await caughtUp(store, Number(p ?? 0)))) await new Promise((r) => setTimeout(r, 100));
  return (performance.now() - t0) / 1000;
}

try {
  const body = manifest();
  const count = body.split('\n---\n').length;
  console.error(`manifest: ${count} objects, ${(body.length / 1024 / 1024).toFixed(2)} MiB of YAML`);

  const first = await post(body, 'applySet=bench');
  console.error('first apply:', first.actions);
  const reconcile = await settle();

  const before = await events();
  const again = await post(body, 'applySet=bench');
  const written = (await events()) - before;
  console.error('unchanged re-apply:', again.actions);

  const changed = manifest({ changed: 'app-0', drop: 'app-1' });
  const third = await post(changed, 'applySet=bench&prune=true');
  console.error('change with prune:', third.actions);

  report('apply_5000_objects_seconds', first.seconds, 's', '<= 10 s');
  report('apply_5000_unchanged_seconds', again.seconds, 's', '<= 3 s');
  report('apply_change_one_with_prune_seconds', third.seconds, 's', '<= 3 s');
  report('apply_unchanged_events_written', written, 'events', '0 events');
  report('apply_reconcile_after_first_seconds', reconcile, 's', 'informational');
} finally {
  await store.close();
  await svc.stop();
  await db.drop();
}
