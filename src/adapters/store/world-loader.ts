// Picks out of the worker's object cache what one Gateway's recompute can depend on, and nothing
// else: the Gateway and its class, the routes that name it, their backends and endpoints, the Secrets and
// ConfigMaps its listeners reference, the ReferenceGrants of every namespace reached across, and
// the Namespaces. It also returns the keys it looked up (found or not): a later change to any of
// them recomputes this Gateway.
import type { Database } from './database';
import type { World } from '../../core/model/world';
import type { K8sObject } from '../../core/model/objects';
import type { ObjectCache } from './object-cache';
import { keepRecent } from '../../core/model/recent';
import { inReadingOrder } from '../../core/objects/order';

export interface GatewayWorld {
  world: World;
  gateway: K8sObject | null;
  /** every event at or below this position is reflected */
  sourcePosition: number;
  deps: string[];
}

export const gatewayStream = (ns: string, name: string) => `Gateway/${ns}/${name}`;

interface Ref { group?: string; kind?: string; namespace?: string; name?: string }

// Cached objects are frozen and shared, so what is read off one is kept for as long as it lives.
const refsOfRoute = new WeakMap<K8sObject, Ref[]>();

/** Every backendRef in a route (rules, and filters such as requestMirror) in the route's namespace terms. */
function backendRefsOf(route: K8sObject): Ref[] {
  let refs = refsOfRoute.get(route);
  if (!refs) refsOfRoute.set(route, (refs = collectBackendRefs(route)));
  return refs;
}

function collectBackendRefs(route: K8sObject): Ref[] {
  const out: Ref[] = [];
  const walk = (v: unknown, key?: string) => {
    if (Array.isArray(v)) {
      if (key === 'backendRefs') for (const r of v) if (r && typeof r === 'object') out.push(r as Ref);
      for (const x of v) walk(x);
    } else if (v && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === 'backendRef' && x && typeof x === 'object') out.push(x as Ref);
        walk(x, k);
      }
    }
  };
  walk(route.spec);
  return out;
}

function gatewayRefs(gw: K8sObject): { secrets: Ref[]; configMaps: Ref[] } {
  const secrets: Ref[] = [];
  const configMaps: Ref[] = [];
  const walk = (v: unknown, key?: string) => {
    if (Array.isArray(v)) {
      if (key === 'certificateRefs') for (const r of v) if (r && typeof r === 'object') secrets.push(r as Ref);
      if (key === 'caCertificateRefs') for (const r of v) if (r && typeof r === 'object') configMaps.push(r as Ref);
      for (const x of v) walk(x);
    } else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) walk(x, k);
  };
  walk(gw.spec);
  return { secrets, configMaps };
}

// Secret data is not in the log (it carries a digest): it is read when a Gateway needs it, and kept
// while its digest stays the same.
const secretData = new WeakMap<ObjectCache, Map<string, { digest: string; data: Record<string, string> }>>();

async function dataOf(db: Database, cache: ObjectCache, secrets: K8sObject[]): Promise<Map<string, Record<string, string>>> {
  let kept = secretData.get(cache);
  if (!kept) secretData.set(cache, (kept = new Map()));
  const streamOf = (s: K8sObject) => `Secret/${s.metadata.namespace ?? ''}/${s.metadata.name}`;
  const missing = secrets.filter((s) => kept!.get(streamOf(s))?.digest !== String(s.dataDigest ?? ''));
  if (missing.length) {
    const rows = await db.sql.$queryRawUnsafe<{ stream: string; data: Record<string, string>; digest: string }[]>(
      `SELECT stream, data, digest FROM secret_data WHERE stream = ANY($1::text[])`, missing.map(streamOf));
    for (const r of rows) kept.set(r.stream, { digest: String(r.digest ?? ''), data: r.data ?? {} });
  }
  return new Map(secrets.map((s) => [streamOf(s), kept!.get(streamOf(s))?.data ?? {}]));
}

// The arrays of a Gateway's last world: an array whose objects are all the same as last time is
// passed again as the same array, so that the core's tables and memos built on it carry over
// (a change to one route leaves the Services, slices and grants the translation reads as they were).
const MAX_WORLDS = 128;
const lastWorlds = new WeakMap<ObjectCache, Map<string, World>>();

function sameItems(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function stabilized(cache: ObjectCache, key: string, world: World): World {
  let worlds = lastWorlds.get(cache);
  if (!worlds) lastWorlds.set(cache, (worlds = new Map()));
  const last = worlds.get(key);
  if (last) for (const k of Object.keys(world) as (keyof World)[]) if (sameItems(world[k], last[k])) (world as any)[k] = last[k];
  return keepRecent(worlds, key, world, MAX_WORLDS);
}

/**
 * What Gateway `ns/name` can depend on, from the cache (synced by the caller). The objects are the
 * cache's own, frozen; `previous` statuses come from the caller (see Reconciler).
 */
export async function loadGatewayWorld(db: Database, cache: ObjectCache, ns: string, name: string, previousGatewayStatus?: Record<string, unknown>): Promise<GatewayWorld> {
  const sourcePosition = cache.position;
  const deps = new Set<string>();
  const world: World = { gatewayClasses: [], gateways: [], routes: [], referenceGrants: [], namespaces: [], services: [], endpointSlices: [], secrets: [], configMaps: [] };
  const gateway = cache.get(gatewayStream(ns, name)) ?? null;
  if (!gateway) return { world, gateway, sourcePosition, deps: [] };
  world.gateways.push((previousGatewayStatus ? { ...gateway, status: previousGatewayStatus } : gateway) as never);
  const cls = gateway.spec?.gatewayClassName ? cache.get(`GatewayClass//${gateway.spec.gatewayClassName}`) : undefined;
  if (cls) world.gatewayClasses.push(cls as never);
  world.routes.push(...(cache.routesNaming(ns, name) as never[]));
  world.namespaces.push(...(cache.ofKind('Namespace') as never[]));
  const usesSelector = (gateway.spec?.listeners ?? []).some((l: any) => l?.allowedRoutes?.namespaces?.from === 'Selector');
  if (usesSelector) deps.add('Namespace/*');

  // Backends of the routes, and the namespaces they reach into.
  const grantNamespaces = new Set<string>();
  const serviceKeys = new Set<string>();
  for (const r of world.routes) {
    const rns = r.metadata.namespace ?? '';
    for (const b of backendRefsOf(r as K8sObject)) {
      if (!b.name) continue;
      const bns = b.namespace ?? rns;
      if (bns !== rns) grantNamespaces.add(bns);
      if ((b.group ?? '') === '' && (b.kind ?? 'Service') === 'Service') serviceKeys.add(`${bns}/${b.name}`);
    }
  }
  for (const key of [...serviceKeys].sort()) {
    deps.add(`Service/${key}`);
    deps.add(`EndpointSlice/${key}`);
    const svc = cache.get(`Service/${key}`);
    if (svc) world.services.push(svc as never);
    const [sns, sname] = key.split('/');
    world.endpointSlices.push(...(cache.slicesOf(sns, sname) as never[]));
  }

  // Listener references: certificates (Secrets, with their data) and CA bundles (ConfigMaps).
  const refs = gatewayRefs(gateway);
  const secretKeys = [...new Set(refs.secrets.filter((r) => r.name).map((r) => `${r.namespace ?? ns}/${r.name}`))].sort();
  const cmKeys = [...new Set(refs.configMaps.filter((r) => r.name).map((r) => `${r.namespace ?? ns}/${r.name}`))].sort();
  for (const r of [...refs.secrets, ...refs.configMaps]) if ((r.namespace ?? ns) !== ns) grantNamespaces.add(r.namespace!);
  const secrets = secretKeys.map((k) => cache.get(`Secret/${k}`)).filter((s): s is K8sObject => Boolean(s));
  const data = secrets.length ? await dataOf(db, cache, secrets) : new Map();
  for (const k of secretKeys) deps.add(`Secret/${k}`);
  for (const sec of secrets) {
    const { dataDigest: _d, ...rest } = sec;
    world.secrets.push(inReadingOrder({ ...rest, data: data.get(`Secret/${sec.metadata.namespace ?? ''}/${sec.metadata.name}`) ?? {} }) as never);
  }
  for (const k of cmKeys) {
    deps.add(`ConfigMap/${k}`);
    const cm = cache.get(`ConfigMap/${k}`);
    if (cm) world.configMaps.push(cm as never);
  }
  for (const g of [...grantNamespaces].sort()) {
    deps.add(`ReferenceGrant/${g}`);
    world.referenceGrants.push(...(cache.ofKind('ReferenceGrant', g) as never[]));
  }
  return { world: stabilized(cache, gatewayStream(ns, name), world), gateway, sourcePosition, deps: [...deps] };
}
