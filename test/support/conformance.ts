// The Gateway API conformance corpus ($CONFORMANCE_DIR, default test/corpora/conformance) as data for
// status tests: loading with the placeholders substituted, which cases we skip and why, checking
// the status expectations, and running a case (manifests, reconcile, check, then each step) against
// a driver that says how objects are written, deleted, reconciled and read: the pure core in memory
// (test/unit/conformance-status.test.ts) or the real service through HTTP (test/int/conformance-api.test.ts).
// Request expectations belong to the route-table tests, not here.
import { readFileSync, existsSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { K8sObject } from '../../src/core/model/objects';
import { conformanceDir } from './corpora';
import { canonicalJson } from '../../src/core/objects/canonical';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const CONFORMANCE_DIR = conformanceDir();
export const CLASS_NAME = 'switchyard';
const GW = 'gateway.networking.k8s.io';

/**
 * The two address pools GatewayStaticAddresses asks for (README, Placeholders): the usable address is
 * in the pool the implementation is configured with (CONFORMANCE_ADDRESS_POOL, which every driver
 * passes on as SWITCHYARD_ADDRESS_POOL does), the unusable one is outside it (TEST-NET-3).
 */
export const ADDRESS_POOLS = {
  PLACEHOLDER_USABLE_ADDRS: [{ type: 'IPAddress', value: '192.0.2.1' }],
  PLACEHOLDER_UNUSABLE_ADDRS: [{ type: 'IPAddress', value: '203.0.113.1' }],
} as const;
type AddressPlaceholder = keyof typeof ADDRESS_POOLS;
export const CONFORMANCE_ADDRESS_POOL: readonly string[] = ['192.0.2.1', '192.0.2.2'];

export interface CorpusOptions {
  controllerName: string;
  className?: string;
  dir?: string;
}

export interface ObjectRef { kind: string; namespace?: string; name: string }

export interface Corpus {
  dir: string;
  cases: any[];
  /** index.json's totals (statusExpectations, requestExpectations, dataPlaneRequestExpectations...) */
  totals: Record<string, any>;
  /** the mesh (GAMMA) cases of mesh/index.json: loaded to be skipped by name (MESH_SKIP) */
  mesh: any[];
  /** base.json, freshly parsed on every call (callers may mutate what they get) */
  base(): K8sObject[];
  load(file: string): any;
}

export function loadCorpus(o: CorpusOptions): Corpus {
  const dir = o.dir ?? CONFORMANCE_DIR;
  const load = (file: string): any => substituteAddresses(JSON.parse(readFileSync(join(dir, file), 'utf8')
    .replaceAll('{GATEWAY_CLASS_NAME}', o.className ?? CLASS_NAME)
    .replaceAll('{GATEWAY_CONTROLLER_NAME}', o.controllerName)));
  const index = existsSync(join(dir, 'index.json')) ? load('index.json') : { cases: [] };
  const mesh = existsSync(join(dir, 'mesh', 'index.json')) ? load(join('mesh', 'index.json')) : { cases: [] };
  return {
    dir, cases: index.cases.map((c: any) => load(c.file)), totals: index.totals ?? {},
    mesh: mesh.cases.map((c: any) => ({ ...c, ...load(join('mesh', c.file)) })), base: () => load('base.json'), load,
  };
}

/** Why the Gateway runners skip the mesh cases: the mesh runners run them (Services as parents, per client namespace). */
export const MESH_SKIP = 'mesh (GAMMA): run by the mesh runners (test/unit/mesh-conformance.test.ts, test/int/mesh-api.test.ts, test/e2e/mesh-proxy.test.ts)';

/** In every `spec.addresses`, an entry `{value: PLACEHOLDER_*}` becomes all entries of that pool. */
export function substituteAddresses<T>(v: T): T {
  if (Array.isArray(v)) return v.map(substituteAddresses) as T;
  if (!v || typeof v !== 'object') return v;
  const out: any = {};
  for (const [k, x] of Object.entries(v)) {
    out[k] = k === 'addresses' && Array.isArray(x)
      ? x.flatMap((a: any) => (a && a.value in ADDRESS_POOLS ? ADDRESS_POOLS[a.value as AddressPlaceholder].map((p) => ({ ...p })) : [substituteAddresses(a)]))
      : substituteAddresses(x);
  }
  return out;
}

/**
 * Features whose control-plane side is complete (statuses, and the compiled table carries what a
 * proxy needs) but whose cases also hold dataPlane requests: they are claimed in
 * src/core/status/features.ts only once the reference proxy passes those. Until then the runners
 * run their cases all the same (status expectations, and requests through resolve), so that a
 * regression shows. Empty since the corpus's dataPlane requests all pass through the proxy
 * (test/e2e/conformance-proxy.test.ts).
 */
export const AWAITING_DATA_PLANE: readonly string[] = [];

/** Why a case does not run against an implementation claiming `supported`, or undefined when it runs. */
export function skipReason(c: any, supported: ReadonlySet<string>): string | undefined {
  const missing = (c.features ?? []).filter((f: string) => !supported.has(f));
  if (missing.length) return `missing ${missing.join(', ')}`;
  const rc = c.runCondition;
  if (rc?.skipIfSupported?.some((f: string) => supported.has(f)))
    return `runCondition: passes trivially when ${rc.skipIfSupported.filter((f: string) => supported.has(f)).join(', ')} is claimed`;
  if (rc?.skipUnlessSupported && !rc.skipUnlessSupported.every((f: string) => supported.has(f)))
    return `runCondition: needs ${rc.skipUnlessSupported.filter((f: string) => !supported.has(f)).join(', ')}`;
  return undefined;
}

/**
 * The EndpointSlice a Service annotated `conformance/endpoints: N` stands for: N ready endpoints,
 * with addresses derived from the Service's name so that outputs do not depend on the order of cases.
 */
export function conformanceEndpointSlice(svc: K8sObject): any | undefined {
  const n = Number(svc.metadata.annotations?.['conformance/endpoints'] ?? NaN);
  if (!Number.isInteger(n) || n < 0) return undefined;
  let base = 0;
  for (const ch of `${svc.metadata.namespace}/${svc.metadata.name}`) base = (base * 31 + ch.charCodeAt(0)) % 200;
  return {
    apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice',
    metadata: { name: `${svc.metadata.name}-conformance`, namespace: svc.metadata.namespace,
      labels: { 'kubernetes.io/service-name': svc.metadata.name } },
    addressType: 'IPv4',
    ports: (svc.spec?.ports ?? []).map((p: any) => ({
      name: p.name ?? '', protocol: p.protocol ?? 'TCP', port: typeof p.targetPort === 'number' ? p.targetPort : p.port,
    })),
    endpoints: Array.from({ length: n }, (_, i) => ({ addresses: [`10.${base}.${i >> 8}.${(i & 255) + 1}`], conditions: { ready: true } })),
  };
}

// ---- expectation checking --------------------------------------------------------------------

export interface Tally { passed: number; failed: string[] }

/** Reads one object as the implementation shows it (with status), or undefined when there is none. */
export type Reader = (kind: string, namespace: string | undefined, name: string) => K8sObject | undefined | Promise<K8sObject | undefined>;
/** Reads a Gateway's compiled table (what its proxy's deployer gets), or undefined when there is none. */
export type TableReader = (namespace: string, name: string) => any | Promise<any>;

/** A statusAddresses entry as an address: `{value, type?}`, or a placeholder standing for its pool's address. */
function wantedAddress(entry: any): { value: string; type?: string } {
  if (entry?.placeholder) {
    const a = ADDRESS_POOLS[entry.placeholder as AddressPlaceholder]?.[0];
    return entry.compareType ? { value: a?.value, type: a?.type } : { value: a?.value };
  }
  return entry?.type !== undefined ? { value: entry.value, type: entry.type } : { value: entry?.value };
}

function checkAddresses(actual: any[] | undefined, want: any, id: string, ok: (cond: boolean, what: string) => void): void {
  const have = actual ?? [];
  const shown = JSON.stringify(have);
  if (want.count !== undefined) ok(have.length === want.count, `${id} status.addresses count ${want.count}; has ${shown}`);
  if (want.minCount !== undefined) ok(have.length >= want.minCount, `${id} status.addresses at least ${want.minCount}; has ${shown}`);
  if (want.typedMinCount !== undefined)
    ok(have.filter((a) => a?.type).length >= want.typedMinCount, `${id} status.addresses at least ${want.typedMinCount} typed; has ${shown}`);
  for (const e of want.includes ?? []) {
    const w = wantedAddress(e);
    ok(have.some((a) => a?.value === w.value && (w.type === undefined || a?.type === w.type)), `${id} status.addresses includes ${JSON.stringify(w)}; has ${shown}`);
  }
  for (const e of want.excludes ?? []) {
    const w = wantedAddress(e);
    ok(!have.some((a) => a?.value === w.value), `${id} status.addresses excludes ${w.value}; has ${shown}`);
  }
}

function condOk(actual: any[] | undefined, want: any): boolean {
  return (actual ?? []).some((c) => c.type === want.type && (want.status === undefined || c.status === want.status)
    && (want.reason === undefined || c.reason === want.reason));
}

function showConds(actual: any[] | undefined): string {
  return JSON.stringify((actual ?? []).map((c) => `${c.type}=${c.status}/${c.reason}`));
}

function genCurrent(conds: any[] | undefined, generation: number | undefined): boolean {
  return (conds ?? []).every((c) => c.observedGeneration === generation);
}

function parentRefMatches(route: any, actual: any, want: any): boolean {
  const ns = route.metadata.namespace;
  if ((actual?.group ?? GW) !== (want.group ?? GW) || (actual?.kind ?? 'Gateway') !== (want.kind ?? 'Gateway')) return false;
  if (actual?.name !== want.name || (actual?.namespace ?? ns) !== (want.namespace ?? ns)) return false;
  if (want.sectionName !== undefined && actual?.sectionName !== want.sectionName) return false;
  if (want.port !== undefined && actual?.port !== want.port) return false;
  return true;
}

/** Checks one `expect` block; `before` holds the generations of the objects a step's generationChanged names. */
export async function check(
  read: Reader, e: any, where: string, before: Map<string, number | undefined> | undefined, t: Tally, controllerName: string,
  readTable?: TableReader,
): Promise<void> {
  const ok = (cond: boolean, what: string) => (cond ? t.passed++ : t.failed.push(`${where}: ${what}`));
  for (const g of e.gatewayClasses ?? []) {
    const gc: any = await read('GatewayClass', undefined, g.name);
    for (const c of g.conditions ?? [])
      ok(condOk(gc?.status?.conditions, c), `GatewayClass ${g.name} condition ${JSON.stringify(c)}; has ${showConds(gc?.status?.conditions)}`);
    if (g.conditionsObservedGenerationCurrent)
      ok(!!gc?.status?.conditions?.length && genCurrent(gc.status.conditions, gc.metadata.generation), `GatewayClass ${g.name} observedGeneration current`);
  }
  for (const g of e.gateways ?? []) {
    const gw: any = await read('Gateway', g.namespace, g.name);
    const id = `Gateway ${g.namespace}/${g.name}`;
    for (const c of g.conditions ?? [])
      ok(condOk(gw?.status?.conditions, c), `${id} condition ${JSON.stringify(c)}; has ${showConds(gw?.status?.conditions)}`);
    if (g.conditionsObservedGenerationCurrent)
      ok(!!gw?.status?.conditions?.length && genCurrent(gw.status.conditions, gw.metadata.generation), `${id} observedGeneration current`);
    if (g.statusAddresses) checkAddresses(gw?.status?.addresses, g.statusAddresses, id, ok);
    if (g.compiledInfrastructure) {
      const infra = readTable ? (await readTable(g.namespace, g.name))?.infrastructure : undefined;
      for (const part of ['labels', 'annotations'] as const)
        for (const [k, v] of Object.entries(g.compiledInfrastructure[part] ?? {}))
          ok(infra?.[part]?.[k] === v, `${id} compiled infrastructure ${part} ${k}=${v}; ${readTable ? `has ${JSON.stringify(infra?.[part])}` : 'this driver reads no tables'}`);
    }
    if (g.attachedListenerSets !== undefined)
      ok((gw?.status?.attachedListenerSets ?? 0) === g.attachedListenerSets, `${id} attachedListenerSets ${g.attachedListenerSets}; has ${gw?.status?.attachedListenerSets}`);
    checkListeners(gw?.status?.listeners ?? [], g, id, ok);
  }
  for (const r of e.routes ?? []) {
    const route: any = await read(r.kind, r.namespace, r.name);
    const id = `${r.kind} ${r.namespace}/${r.name}`;
    const parents: any[] = route?.status?.parents ?? [];
    for (const wp of r.parents ?? []) {
      const candidates = parents.filter((p) => route && parentRefMatches(route, p.parentRef, wp.parentRef) && p.controllerName === controllerName);
      const best = candidates.find((p) => (wp.conditions ?? []).every((c: any) => condOk(p.conditions, c))) ?? candidates[0];
      for (const c of wp.conditions ?? [])
        ok(!!best && condOk(best.conditions, c), `${id} parent ${JSON.stringify(wp.parentRef)} condition ${JSON.stringify(c)}; has ${best ? showConds(best.conditions) : 'no matching parent'}`);
    }
    if (r.noAcceptedParents)
      ok(parents.length === 0 || (parents.length === 1 && condOk(parents[0].conditions, { type: 'Accepted', status: 'False' })),
        `${id} has no accepted parents; has ${JSON.stringify(parents.map((p) => showConds(p.conditions)))}`);
    if (r.conditionsObservedGenerationCurrent)
      ok(!!route && parents.length > 0 && parents.every((p) => genCurrent(p.conditions, route.metadata.generation)), `${id} observedGeneration current`);
    if (r.parentsExact)
      ok(parents.filter((p) => p.controllerName === controllerName).length === (r.parents ?? []).length,
        `${id} has exactly ${(r.parents ?? []).length} parents; has ${JSON.stringify(parents.map((p) => p.parentRef))}`);
    // upcoming/ (#5138): only our own entries need to be current; another controller's are its business
    if (r.ownParentsObservedGenerationCurrent) {
      const own = parents.filter((p) => p.controllerName === controllerName);
      ok(!!route && own.length > 0 && own.every((p) => genCurrent(p.conditions, route.metadata.generation)), `${id} own parents' observedGeneration current`);
    }
    for (const f of r.foreignParentsUnchanged ?? []) {
      const seeded = seededParents.get(`${refKey({ kind: r.kind, namespace: r.namespace, name: r.name })}|${f.controllerName}|${JSON.stringify(f.parentRef)}`);
      const now = parents.find((p) => p.controllerName === f.controllerName && route && parentRefMatches(route, p.parentRef, f.parentRef));
      ok(!!seeded && !!now && canonicalJson(now) === canonicalJson(seeded), `${id} foreign parent ${f.controllerName} ${JSON.stringify(f.parentRef)} unchanged; seeded ${JSON.stringify(seeded)}, has ${JSON.stringify(now)}`);
    }
  }
  for (const bp of e.backendTLSPolicies ?? []) {
    const policy: any = await read('BackendTLSPolicy', bp.namespace, bp.name);
    const id = `BackendTLSPolicy ${bp.namespace}/${bp.name}`;
    const ancestors: any[] = policy?.status?.ancestors ?? [];
    for (const wa of bp.ancestors ?? []) {
      const candidates = ancestors.filter((a) => (a.ancestorRef?.group ?? GW) === (wa.ancestorRef.group ?? GW)
        && (a.ancestorRef?.kind ?? 'Gateway') === (wa.ancestorRef.kind ?? 'Gateway') && a.ancestorRef?.name === wa.ancestorRef.name
        && (a.ancestorRef?.namespace ?? bp.namespace) === (wa.ancestorRef.namespace ?? bp.namespace)
        && (wa.controllerName === undefined || a.controllerName === wa.controllerName));
      const best = candidates.find((a) => (wa.conditions ?? []).every((c: any) => condOk(a.conditions, c))) ?? candidates[0];
      for (const c of wa.conditions ?? [])
        ok(!!best && condOk(best.conditions, c), `${id} ancestor ${JSON.stringify(wa.ancestorRef)} condition ${JSON.stringify(c)}; has ${best ? showConds(best.conditions) : 'no matching ancestor'}`);
    }
    if (bp.conditionsObservedGenerationCurrent)
      ok(!!policy && ancestors.every((a) => genCurrent(a.conditions, policy.metadata.generation)), `${id} observedGeneration current`);
  }
  await checkListenerSets(read, e, ok);
  for (const g of e.generationChanged ?? []) {
    const o: any = await read(g.kind, g.namespace, g.name);
    const k = refKey(g);
    ok(!!o && before !== undefined && o.metadata.generation !== before.get(k), `${k} generation changed`);
  }
}

/** status.listeners of a Gateway or a ListenerSet against `want.listeners` (and `want.listenersExact`). */
function checkListeners(listeners: any[], want: any, id: string, ok: (cond: boolean, what: string) => void): void {
  if (want.listenersExact) {
    const names = (want.listeners ?? []).map((l: any) => l.name).sort();
    ok(JSON.stringify(listeners.map((l) => l.name).sort()) === JSON.stringify(names), `${id} listeners exactly ${names}; has ${listeners.map((l) => l.name)}`);
  }
  for (const wl of want.listeners ?? []) {
    const l = listeners.find((x) => x.name === wl.name);
    const lid = `${id} listener ${wl.name}`;
    for (const c of wl.conditions ?? []) ok(condOk(l?.conditions, c), `${lid} condition ${JSON.stringify(c)}; has ${showConds(l?.conditions)}`);
    for (const type of wl.absentConditionTypes ?? [])
      ok(!!l && !(l.conditions ?? []).some((c: any) => c.type === type), `${lid} has no ${type} condition; has ${showConds(l?.conditions)}`);
    if (wl.attachedRoutes !== undefined) ok(l?.attachedRoutes === wl.attachedRoutes, `${lid} attachedRoutes ${wl.attachedRoutes}; has ${l?.attachedRoutes}`);
    if (wl.supportedKinds !== undefined) {
      const have: any[] = l?.supportedKinds ?? [];
      const good = wl.supportedKinds.length === 0
        ? !!l && have.length === 0
        : wl.supportedKinds.every((k: any) => have.some((h) => (h.group ?? GW) === (k.group ?? GW) && h.kind === k.kind));
      ok(good, `${lid} supportedKinds ${JSON.stringify(wl.supportedKinds)}; has ${JSON.stringify(have)}`);
    }
  }
}

/** `listenerSets[]`: a ListenerSet's conditions and listeners, as for a Gateway. */
async function checkListenerSets(read: Reader, e: any, ok: (cond: boolean, what: string) => void): Promise<void> {
  for (const s of e.listenerSets ?? []) {
    const ls: any = await read('ListenerSet', s.namespace, s.name);
    const id = `ListenerSet ${s.namespace}/${s.name}`;
    for (const c of s.conditions ?? [])
      ok(condOk(ls?.status?.conditions, c), `${id} condition ${JSON.stringify(c)}; has ${showConds(ls?.status?.conditions)}`);
    if (s.conditionsObservedGenerationCurrent)
      ok(!!ls?.status?.conditions?.length && genCurrent(ls.status.conditions, ls.metadata.generation), `${id} observedGeneration current`);
    checkListeners(ls?.status?.listeners ?? [], s, id, ok);
  }
}

export const refKey = (r: ObjectRef) => `${r.kind}/${r.namespace ?? ''}/${r.name}`;

/**
 * The status.parents entries a step's `statusWrites` seeded (upcoming/, #5138), by route, controller
 * and parentRef, as they were written: `foreignParentsUnchanged` compares against these.
 */
const seededParents = new Map<string, any>();

/** A step's `statusWrites` as entries to append, with {CURRENT_GENERATION} and {NOW} filled in; remembered for the check. */
export function seedStatusWrites(w: any, route: K8sObject | undefined, now: Date): any[] {
  const gen = route?.metadata.generation;
  const at = new Date(Math.floor(now.getTime() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
  return (w.appendRouteParents ?? []).map((p: any) => {
    const entry = {
      parentRef: p.parentRef, controllerName: p.controllerName,
      conditions: (p.conditions ?? []).map((c: any) => ({ ...c,
        observedGeneration: c.observedGeneration === '{CURRENT_GENERATION}' ? gen : c.observedGeneration,
        lastTransitionTime: c.lastTransitionTime === '{NOW}' ? at : c.lastTransitionTime })),
    };
    seededParents.set(`${refKey({ kind: w.kind, namespace: w.namespace, name: w.name })}|${p.controllerName}|${JSON.stringify(p.parentRef)}`, entry);
    return entry;
  });
}

// ---- running ---------------------------------------------------------------------------------

/** How a case reaches the implementation under test. */
export interface Driver {
  apply(obj: K8sObject): Promise<void> | void;
  delete(ref: ObjectRef): Promise<void> | void;
  /** returns once every write so far is reflected in status */
  reconcile(): Promise<void> | void;
  read: Reader;
  /** the Gateway's compiled table, for compiledInfrastructure */
  table?: TableReader;
  /** appends entries to a route's status.parents as another controller would (upcoming/ `statusWrites`) */
  appendRouteParents?(ref: ObjectRef, entries: any[]): Promise<void> | void;
}

/** Applies a case's manifests (objects of base.json are the driver's business), then its steps. */
export async function runCase(c: any, d: Driver, controllerName: string): Promise<Tally> {
  const tally: Tally = { passed: 0, failed: [] };
  for (const o of c.manifests ?? []) await d.apply(o);
  await d.reconcile();
  await check(d.read, c.expect ?? {}, `${c.name}`, undefined, tally, controllerName, d.table);
  for (const [si, s] of (c.steps ?? []).entries()) {
    const before = new Map<string, number | undefined>();
    for (const g of s.expect?.generationChanged ?? []) before.set(refKey(g), ((await d.read(g.kind, g.namespace, g.name)) as any)?.metadata?.generation);
    for (const r of s.delete ?? []) await d.delete(r);
    for (const w of s.statusWrites ?? []) {
      const ref = { kind: w.kind, namespace: w.namespace, name: w.name };
      if (!d.appendRouteParents) throw new Error(`${c.name}: this driver cannot write route status (statusWrites)`);
      await d.appendRouteParents(ref, seedStatusWrites(w, await d.read(ref.kind, ref.namespace, ref.name), new Date()));
    }
    for (const o of s.apply ?? []) await d.apply(o);
    await d.reconcile();
    await check(d.read, s.expect ?? {}, `${c.name} step ${si + 1}`, before, tally, controllerName, d.table);
  }
  return tally;
}

export class Totals {
  passed = 0;
  failed = 0;
  cases = 0;
  skipped: string[] = [];

  add(t: Tally): void {
    this.cases++;
    this.passed += t.passed;
    this.failed += t.failed.length;
  }

  line(label: string, of?: number): string {
    return `${label}: ${this.passed}${of !== undefined ? ` of ${of}` : ''} expectations passed, ${this.failed} failed, in ${this.cases} cases; `
      + `skipped: ${this.skipped.length ? bySkipReason(this.skipped) : 'none'}`;
  }
}

/** `name (reason)` entries as `reason: n cases (name, name...)`, one group per reason, largest first. */
export function bySkipReason(entries: readonly string[]): string {
  const groups = new Map<string, string[]>();
  for (const e of entries) {
    const at = e.indexOf(' (');
    const name = at < 0 ? e : e.slice(0, at);
    const reason = at < 0 ? 'no reason given' : e.slice(at + 2, e.endsWith(')') ? -1 : undefined);
    (groups.get(reason) ?? groups.set(reason, []).get(reason)!).push(name);
  }
  return [...groups].sort((a, b) => b[1].length - a[1].length)
    .map(([reason, names]) => `${reason}: ${names.length} case${names.length > 1 ? 's' : ''} (${names.join(', ')})`).join('; ');
}
