// `npm run bench:phases`: where a one-route change's recompute spends its time, in process and
// without I/O, for one Gateway with BENCH_ROUTES routes (5,000): loading the world from the object
// source, translating (attach, order, compile, statuses) with the table's parts and their hash,
// the status diff and the delta that is stored (or, with no earlier version, the whole table
// serialized and deflated). Each phase is the median over
// BENCH_CHANGES (200) changes to random routes, after a warm-up, in CPU time (this process's, so
// that other work on the machine counts less than it would in wall-clock time). BENCH_ALLOCATIONS=1
// also prints what the changes allocate (the phases' times then include the sampling's cost).
// BENCH_CREATE=1: each measured change creates a route rather than changing one.
// BENCH_BURST=N instead starts the Gateway with no routes and writes them N at a time, a recompute
// after each run, as a burst of writes reaches the worker (its holdoff gathers runs of some 100-200
// routes at 5,000): the CPU per route written, over the whole burst and over its second half.
import { Session } from 'node:inspector/promises';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { MemorySource } from '../src/adapters/store/memory-source';
import { loadGatewayWorld, loaderMemo } from '../src/adapters/store/world-loader';
import { translateLoaded } from '../src/service/reconcile';
import { planRecompute } from '../src/service/recompute-plan';
import { deflateTail } from '../src/adapters/delivery/snapshots';
import { TranslationContext } from '../src/core/translate';
import type { TableParts } from '../src/core/snapshot/table-parts';
import { tableHash } from '../src/core/snapshot/table-hash';
import { snapshotDeltaText } from '../src/core/snapshot/delta';
import type { Written } from '../src/adapters/store/recompute-write';
import type { K8sObject } from '../src/core/model/objects';
import { percentile, report } from './support';
import { GW, httpRoute as routeOf, teamOf } from './large-gateway';

const cpuNow = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };

const ROUTES = Number(process.env.BENCH_ROUTES ?? 5000);
const CHANGES = Number(process.env.BENCH_CHANGES ?? 200);
const BURST = Number(process.env.BENCH_BURST ?? 0);
const CREATE = process.env.BENCH_CREATE === '1';
const obj = (o: unknown) => o as K8sObject;
/** the HTTP benchmark's route, as the store holds it (namespaced, with a generation and an age) */
const httpRoute = (i: number, path: string) => {
  const r = routeOf(i, 'shared', path);
  return obj({ ...r, metadata: { ...r.metadata, namespace: teamOf(i), generation: 1, creationTimestamp: '2026-01-01T00:00:00Z' } });
};

const source = new MemorySource([
  obj({ apiVersion: GW, kind: 'GatewayClass', metadata: { name: 'sy', generation: 1 }, spec: { controllerName: 'switchyard.dev/gateway-controller' } }),
  obj({ apiVersion: GW, kind: 'Gateway', metadata: { namespace: 'infra', name: 'shared', generation: 1 }, spec: { gatewayClassName: 'sy', listeners: [{ name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' } } }] } }),
  ...Array.from({ length: 20 }, (_, t) => obj({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: `team-${t}` } })),
  ...Array.from({ length: 100 }, (_, j) => obj({ apiVersion: 'v1', kind: 'Service', metadata: { namespace: teamOf(j), name: `svc-${j}` }, spec: { ports: [{ name: 'http', port: 80, targetPort: 'http' }] } })),
  ...Array.from({ length: 100 }, (_, j) => obj({
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { namespace: teamOf(j), name: `svc-${j}-1`, labels: { 'kubernetes.io/service-name': `svc-${j}` } }, addressType: 'IPv4',
    endpoints: [0, 1, 2].map((e) => ({ addresses: [`10.${j}.0.${e + 1}`], conditions: { ready: true } })), ports: [{ name: 'http', port: 8080 }],
  })),
  ...Array.from({ length: BURST > 0 ? 0 : ROUTES }, (_, i) => httpRoute(i, `/svc-${i}`)),
]);

let memo = loaderMemo(128);
const ctx = new TranslationContext({ capacity: 128 });
const ref = { namespace: 'infra', name: 'shared' };
const opts = { controllerName: 'switchyard.dev/gateway-controller', now: '2026-12-01T00:00:00.000Z' };
let before: Written = { gate: null, parts: new Map(), deps: '[]', hash: null };
let prevParts: TableParts | undefined;
const phases = new Map<string, number[]>();
const time = <T>(name: string, fn: () => T): T => {
  const t = cpuNow();
  const out = fn();
  (phases.get(name) ?? phases.set(name, []).get(name)!).push(cpuNow() - t);
  return out;
};

async function once(n: number): Promise<void> {
  const t0 = cpuNow();
  const loaded = await loadGatewayWorld(source, 'infra', 'shared', memo, before.gatewayStatus);
  (phases.get('load') ?? phases.set('load', []).get('load')!).push(cpuNow() - t0);
  // as the worker does: the table's parts and their hash with the translation, then the delta it stores
  const out = time('translate+parts+hash', () => translateLoaded(loaded, ref, before, opts, ctx));
  const { plan, after } = time('plan (status diff)', () => planRecompute(before, {
    gateKey: 'g', owner: 'Gateway/infra/shared', scope: opts.controllerName, routeOwner: 'g', sourcePosition: n, now: opts.now, durationMs: 0, deps: loaded.deps,
    statuses: out.translation && { gatewayStatus: out.translation.gatewayStatus, routeParents: out.translation.routeParents, policyAncestors: out.translation.policyAncestors, listenerSets: out.translation.listenerSetStatuses },
    snapshot: out.hash !== undefined ? {
      hash: out.hash, unattached: out.unattached,
      content: () => (prevParts
        ? { delta: { from: n - 1, text: time('delta', () => snapshotDeltaText(ref, n - 1, n, out.hash!, prevParts!, out.parts!)) } }
        : time('whole table (json, deflate)', () => ({ tailZ: deflateTail(out.tail()), wholeBytes: out.tail().length }))),
    } : undefined,
  }));
  void plan;
  before = after;
  prevParts = out.parts;
  (phases.get('total') ?? phases.set('total', []).get('total')!).push(cpuNow() - t0);
}

await once(0);
if (BURST > 0) {
  const t0 = cpuNow();
  let half: { at: number; n: number } | undefined;
  for (let n = 0, run = 1; n < ROUTES; run++) {
    if (!half && n >= ROUTES / 2) half = { at: cpuNow(), n };
    for (const end = Math.min(ROUTES, n + BURST); n < end; n++) source.put(httpRoute(n, `/svc-${n}`));
    await once(run);
  }
  report(`${ROUTES}_routes_burst_of_${BURST}_cpu_per_route`, (cpuNow() - t0) / ROUTES, 'ms', 'informational');
  report(`${ROUTES}_routes_burst_of_${BURST}_second_half_cpu_per_route`, (cpuNow() - half!.at) / (ROUTES - half!.n), 'ms', 'informational');
  process.exit(0);
}
for (let k = 0; k < 20; k++) {
  const i = Math.floor(Math.random() * ROUTES);
  source.put(httpRoute(i, `/svc-${i}/w${k}`));
  await once(k + 1);
}
phases.clear();
// BENCH_ALLOCATIONS=1: what the changes allocate, by function, per change (the engine's sampling
// heap profiler, counting what was collected since): large objects (arrays of a Gateway's routes)
// are what a change must not make, as each is page-faulted in and freed only by a full collection
const sampling = process.env.BENCH_ALLOCATIONS === '1' ? new Session() : undefined;
if (sampling) {
  sampling.connect();
  await sampling.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true } as never);
}
for (let k = 0; k < CHANGES; k++) {
  const i = CREATE ? ROUTES + k : Math.floor(Math.random() * ROUTES);
  source.put(httpRoute(i, `/svc-${i}/c${k}`));
  await once(100 + k);
}
if (sampling) printAllocations(((await sampling.post('HeapProfiler.stopSampling')) as unknown as { profile: SamplingProfile }).profile, CHANGES);
for (const [name, ms] of phases) report(`${ROUTES}_routes_${name.replace(/[^a-z]+/g, '_')}_p50`, percentile(ms.sort((a, b) => a - b), 50), 'ms', 'informational');
// what stays held after the changes (a version must not keep the ones before it alive), after a
// full collection (the npm script runs without --expose-gc)
setFlagsFromString('--expose-gc');
(runInNewContext('gc') as () => void)();
report(`${ROUTES}_routes_heap_after_changes`, process.memoryUsage().heapUsed / 2 ** 20, 'MB', 'informational');
// BENCH_MEMO_SIZES=1: what each memo holds a route, freed in turn (what two hold goes with the
// later one): the translation context's memos, the table's parts, the written statuses, the loader's
if (process.env.BENCH_MEMO_SIZES === '1') {
  const gc = runInNewContext('gc') as () => void;
  let last = process.memoryUsage().heapUsed;
  const freed = (name: string, drop: () => void) => {
    drop();
    gc();
    const now = process.memoryUsage().heapUsed;
    report(`${ROUTES}_routes_held_by_${name.replace(/[^a-zA-Z]+/g, '_')}`, (last - now) / ROUTES / 1024, 'KB/route', 'informational');
    last = now;
  };
  for (const name of ctx.memoNames()) freed(name, () => ctx.dropMemo(name));
  freed('table parts', () => { prevParts = undefined; });
  freed('written statuses', () => { before = { gate: null, parts: new Map(), deps: '[]', hash: null }; });
  freed('loader', () => { memo = loaderMemo(128); });
  report(`${ROUTES}_routes_heap_without_memos`, process.memoryUsage().heapUsed / 2 ** 20, 'MB', 'informational');
}
// BENCH_HEAP_SNAPSHOT=file: what holds that heap, for the DevTools memory panel
if (process.env.BENCH_HEAP_SNAPSHOT) (await import('node:v8')).writeHeapSnapshot(process.env.BENCH_HEAP_SNAPSHOT);
if (process.env.BENCH_STEPS) {
  const { viewOf } = await import('../src/core/refs/lookup');
  const { validateGateway, attachRoutes, attachmentOf } = await import('../src/core/attach/attach');
  const { resolveReferences, refsOf } = await import('../src/core/refs/resolution');
  const { orderGateway } = await import('../src/core/precedence/order');
  const { compileParts } = await import('../src/core/compile');
  const { routeParentsOf } = await import('../src/core/status/route');
  const { gatewayStatusOf } = await import('../src/core/status/gateway');
  const steps = new Map<string, number[]>();
  const t = <T>(name: string, fn: () => T): T => { const s = cpuNow(); const o = fn(); (steps.get(name) ?? steps.set(name, []).get(name)!).push(cpuNow() - s); return o; };
  for (let k = 0; k < 40; k++) {
    const i = Math.floor(Math.random() * ROUTES);
    source.put(httpRoute(i, `/svc-${i}/s${k}`));
    const loaded = await loadGatewayWorld(source, 'infra', 'shared', memo, before.gatewayStatus);
    const view = t('viewOf', () => viewOf(loaded.world, ctx));
    const validated = t('validate', () => validateGateway(view, ref, opts))!;
    const att = t('attachRoutes', () => attachRoutes(view, validated));
    const analysis = { ...validated, ...att };
    const refs = t('resolveReferences', () => resolveReferences(view, analysis.gateway, analysis.routes));
    const attachment = t('attachmentOf', () => attachmentOf(analysis, ctx));
    const ordered = t('orderGateway', () => orderGateway(ctx, attachment));
    const parts = t('compileParts', () => compileParts(view, attachment, ordered, { includeUnattached: false }));
    t('tableHash', () => tableHash(parts, []));
    if (prevParts) t('snapshotDelta', () => snapshotDeltaText(ref, 1, 2, 'h', prevParts!, parts));
    prevParts = parts;
    const prevMap = new Map<string, unknown>();
    t('routeParentsOf', () => routeParentsOf(analysis, refsOf(view, refs), opts.controllerName, opts.now, () => undefined, ctx));
    t('gatewayStatusOf', () => gatewayStatusOf(analysis, refs, opts.now, undefined as never, undefined as never));
    void prevMap;
  }
  for (const [name, ms] of steps) report(`${ROUTES}_routes_step_${name}_p50`, percentile(ms.sort((a, b) => a - b), 50), 'ms', 'informational');
}

interface SamplingNode { id: number; selfSize: number; callFrame: { functionName: string; url: string; lineNumber: number }; children: SamplingNode[] }
interface SamplingProfile { head: SamplingNode; samples: { size: number; nodeId: number }[] }

function printAllocations(profile: SamplingProfile, changes: number): void {
  const frame = (n: SamplingNode) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.split('/').slice(-2).join('/')}:${n.callFrame.lineNumber}`;
  const self = new Map<string, number>();
  const nodes = new Map<number, { node: SamplingNode; parent?: SamplingNode }>();
  const walk = (n: SamplingNode, parent?: SamplingNode) => {
    nodes.set(n.id, { node: n, parent });
    if (n.selfSize) self.set(frame(n), (self.get(frame(n)) ?? 0) + n.selfSize);
    for (const c of n.children) walk(c, n);
  };
  walk(profile.head);
  // an object of 128 KiB or more is a large object: by the three calls that made it
  const large = new Map<string, number>();
  for (const s of profile.samples) {
    if (s.size < 128 * 1024) continue;
    const stack: string[] = [];
    for (let at = nodes.get(s.nodeId); at && stack.length < 3; at = at.parent && nodes.get(at.parent.id)) stack.push(frame(at.node));
    large.set(stack.join(' < '), (large.get(stack.join(' < ')) ?? 0) + s.size);
  }
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  report(`${ROUTES}_routes_allocated_per_change`, total / changes / 1024, 'KiB', 'informational');
  report(`${ROUTES}_routes_large_objects_per_change`, [...large.values()].reduce((a, b) => a + b, 0) / changes / 1024, 'KiB', 'informational');
  for (const [k, v] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`  ${(v / changes / 1024).toFixed(0).padStart(6)} KiB  ${k}`);
  for (const [k, v] of [...large].sort((a, b) => b[1] - a[1]).slice(0, 10)) console.log(`  large ${(v / changes / 1024).toFixed(0).padStart(6)} KiB  ${k}`);
}
