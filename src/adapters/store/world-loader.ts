// Loads what one Gateway's recompute can depend on, and nothing else, from one consistent snapshot:
// the Gateway and its class, the routes that name it, their backends and endpoints, the Secrets and
// ConfigMaps its listeners reference, the ReferenceGrants of every namespace reached across, and
// the Namespaces. It also returns the keys it looked up (found or not): a later change to any of
// them recomputes this Gateway.
import type { Database } from './database';
import type { World } from '../../core/model/world';
import type { K8sObject } from '../../core/model/objects';
import { ROUTE_KINDS } from '../../core/model/kinds';
import { TX_SHIFT } from './eventlog';
import { inReadingOrder } from '../../core/objects/order';

export interface GatewayWorld {
  world: World;
  gateway: K8sObject | null;
  /** every event at or below this position is reflected */
  sourcePosition: number;
  deps: string[];
  /** status parts this Gateway wrote before, by route stream */
  previousParts: Map<string, { parents?: unknown[] }>;
  previousGatewayStatus?: Record<string, unknown>;
}

const GROUP = 'gateway.networking.k8s.io';
const SVC_LABEL = 'kubernetes.io/service-name';

export const gatewayStream = (ns: string, name: string) => `Gateway/${ns}/${name}`;

interface Ref { group?: string; kind?: string; namespace?: string; name?: string }

/** Every backendRef in a route (rules, and filters such as requestMirror) in the route's namespace terms. */
function backendRefsOf(route: K8sObject): Ref[] {
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

/** Objects of the projection passed validation on write: the world's types hold. */
function rows<T = any>(objs: any[]): T[] {
  return objs.map((o) => inReadingOrder(o));
}

// Everything in one statement: one statement sees one snapshot, so no transaction is needed, and a
// recompute pays for one round trip instead of a dozen. The SQL fetches a superset of the
// backends, certificates and grants (it follows every backendRef of every candidate route); the
// dependency list is still worked out exactly, below, from the routes that do name this Gateway.
const LOAD_SQL = `
WITH gw AS (
  SELECT o.stream, o.object FROM objects o WHERE o.stream = $1 AND NOT o.deleted
),
routes AS (
  SELECT o.stream, o.position, o.object FROM objects o
  WHERE EXISTS (SELECT 1 FROM gw) AND o.kind = ANY($4::text[]) AND NOT o.deleted
    AND o.object->'spec'->'parentRefs' @> $5::jsonb
),
brefs AS (
  SELECT coalesce(b->>'namespace', r.object->'metadata'->>'namespace', '') AS ns, b->>'name' AS name,
         coalesce(b->>'group', '') AS grp, coalesce(b->>'kind', 'Service') AS kind,
         coalesce(r.object->'metadata'->>'namespace', '') AS rns
  FROM routes r CROSS JOIN LATERAL (
    SELECT b FROM jsonb_path_query(r.object->'spec', 'lax $.**.backendRefs[*] ? (@.type() == "object")') AS b
    UNION ALL
    SELECT b FROM jsonb_path_query(r.object->'spec', 'lax $.**.backendRef ? (@.type() == "object")') AS b
  ) AS found
  WHERE coalesce(b->>'name', '') <> ''
),
svc AS (SELECT DISTINCT ns, name FROM brefs WHERE grp = '' AND kind = 'Service'),
lrefs AS (
  SELECT 'Secret' AS kind, coalesce(x->>'namespace', $6) AS ns, x->>'name' AS name
  FROM gw CROSS JOIN LATERAL jsonb_path_query(gw.object->'spec', 'lax $.**.certificateRefs[*] ? (@.type() == "object")') AS x
  UNION ALL
  SELECT 'ConfigMap', coalesce(x->>'namespace', $6), x->>'name'
  FROM gw CROSS JOIN LATERAL jsonb_path_query(gw.object->'spec', 'lax $.**.caCertificateRefs[*] ? (@.type() == "object")') AS x
),
grant_ns AS (SELECT ns FROM brefs WHERE ns <> rns UNION SELECT ns FROM lrefs WHERE ns <> $6)
SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin,
  (SELECT object FROM gw) AS gateway,
  (SELECT sp.status FROM gw JOIN status_parts sp ON sp.stream = gw.stream AND sp.owner = $2) AS gateway_status,
  (SELECT coalesce(json_agg(json_build_array(sp.stream, sp.position, CASE WHEN sp.position = ANY($7::bigint[]) THEN NULL ELSE sp.status END)), '[]'::json)
     FROM status_parts sp WHERE sp.owner = $3) AS parts,
  (SELECT c.object FROM gw JOIN objects c ON c.stream = 'GatewayClass//' || (gw.object->'spec'->>'gatewayClassName') AND NOT c.deleted) AS class,
  (SELECT coalesce(json_agg(json_build_array(r.stream, r.position, CASE WHEN r.position = ANY($7::bigint[]) THEN NULL ELSE r.object END)), '[]'::json) FROM routes r) AS routes,
  (SELECT coalesce(json_agg(o.object), '[]'::json) FROM objects o WHERE EXISTS (SELECT 1 FROM gw) AND o.kind = 'Namespace' AND NOT o.deleted) AS namespaces,
  (SELECT coalesce(json_agg(json_build_array(o.stream, o.position, CASE WHEN o.position = ANY($7::bigint[]) THEN NULL ELSE o.object END)), '[]'::json)
     FROM svc JOIN objects o ON o.stream = 'Service/' || svc.ns || '/' || svc.name AND NOT o.deleted) AS services,
  (SELECT coalesce(json_agg(json_build_array(o.stream, o.position, CASE WHEN o.position = ANY($7::bigint[]) THEN NULL ELSE o.object END)), '[]'::json) FROM svc JOIN objects o
     ON o.kind = 'EndpointSlice' AND o.namespace = svc.ns AND o.object->'metadata'->'labels'->>'${SVC_LABEL}' = svc.name AND NOT o.deleted) AS endpoint_slices,
  (SELECT coalesce(json_agg(json_build_object('object', o.object, 'data', d.data)), '[]'::json)
     FROM (SELECT DISTINCT ns, name FROM lrefs WHERE kind = 'Secret' AND coalesce(name, '') <> '') k
     JOIN objects o ON o.stream = 'Secret/' || k.ns || '/' || k.name AND NOT o.deleted
     LEFT JOIN secret_data d ON d.stream = o.stream) AS secrets,
  (SELECT coalesce(json_agg(o.object), '[]'::json)
     FROM (SELECT DISTINCT ns, name FROM lrefs WHERE kind = 'ConfigMap' AND coalesce(name, '') <> '') k
     JOIN objects o ON o.stream = 'ConfigMap/' || k.ns || '/' || k.name AND NOT o.deleted) AS config_maps,
  (SELECT coalesce(json_agg(o.object), '[]'::json) FROM objects o
     WHERE o.kind = 'ReferenceGrant' AND o.namespace IN (SELECT ns FROM grant_ns) AND NOT o.deleted) AS grants`;

interface LoadRow {
  xmin: bigint | number;
  gateway: K8sObject | null;
  gateway_status: Record<string, unknown> | null;
  parts: [stream: string, position: number, status: { parents?: unknown[] } | null][];
  class: K8sObject | null;
  routes: Held[];
  namespaces: K8sObject[];
  services: Held[];
  endpoint_slices: Held[];
  secrets: { object: K8sObject & { dataDigest?: string }; data: Record<string, string> | null }[];
  config_maps: K8sObject[];
  grants: K8sObject[];
}

/** A route, Service or EndpointSlice as loaded: its stream, its position, and the object unless it was known. */
type Held = [stream: string, position: number, object: K8sObject | null];

// The routes, Services, EndpointSlices and route status parts a Gateway's last recompute read are kept (up to a bound)
// with the position they were read at, and the load sends the positions the Gateway read last time:
// an object still at one of them comes back as its position alone. An object's position moves with
// every write to it, so an object at the same position is the same object. Kept objects are shared
// by recomputes and never changed.
const MAX_KEPT_OBJECTS = 4096;
const MAX_KEPT_GATEWAYS = 256;
interface Kept { objects: Map<string, { position: number; object: K8sObject }>; known: Map<string, [string, number][]> }
const kept = new WeakMap<Database, Kept>();

function keptOf(db: Database): Kept {
  let k = kept.get(db);
  if (!k) kept.set(db, (k = { objects: new Map(), known: new Map() }));
  return k;
}

/** The objects of a list, from the load or from what is kept; null when a kept one is missing. */
function held<T = K8sObject>(k: Kept, list: [string, number, T | null][], seen: [string, number][], prefix = ''): T[] | null {
  const out: T[] = [];
  for (const [name, position, object] of list) {
    const stream = prefix + name;
    let entry = k.objects.get(stream) as { position: number; object: T } | undefined;
    if (object) {
      entry = { position, object: deepFreeze(object) };
    } else if (!entry || entry.position !== position) {
      return null;
    }
    k.objects.delete(stream); // most recently used last
    k.objects.set(stream, entry as never);
    seen.push([stream, position]);
    out.push(entry.object);
  }
  return out;
}

/** Forgets the least recently used objects and Gateways beyond the bounds. */
function trim(k: Kept): void {
  for (const stream of k.objects.keys()) {
    if (k.objects.size <= MAX_KEPT_OBJECTS) break;
    k.objects.delete(stream);
  }
  for (const owner of k.known.keys()) {
    if (k.known.size <= MAX_KEPT_GATEWAYS) break;
    k.known.delete(owner);
  }
}

function deepFreeze<T>(v: T): T {
  if (v && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

/** `owner`: the owner of this controller's route status parts for this Gateway; `selfOwner`: of the Gateway's own. */
export async function loadGatewayWorld(db: Database, ns: string, name: string, owner: string, selfOwner: string): Promise<GatewayWorld> {
  const k = keptOf(db);
  // only what is still kept (an object read by other Gateways since may have pushed it out)
  let known = (k.known.get(owner) ?? []).filter(([stream, position]) => k.objects.get(stream)?.position === position).map(([, position]) => position);
  let row: LoadRow;
  let routes: K8sObject[] | null;
  let services: K8sObject[] | null;
  let slices: K8sObject[] | null;
  let parts: [string, { parents?: unknown[] }][] | null;
  for (;;) {
    [row] = await db.prepared<LoadRow[]>('switchyard_load_gateway_world', LOAD_SQL,
      gatewayStream(ns, name), selfOwner, owner, [...ROUTE_KINDS], JSON.stringify([{ name }]), ns, known);
    const seen: [string, number][] = [];
    routes = held(k, row.routes, seen);
    services = routes && held(k, row.services, seen);
    slices = services && held(k, row.endpoint_slices, seen);
    // a Gateway's route status parts, under their owner
    parts = slices && held(k, row.parts.map(([stream, position, status]) => [stream, position, status && [stream, status]]), seen, `${owner}\n`);
    k.known.delete(owner);
    if (parts) {
      k.known.set(owner, seen);
      trim(k);
      break;
    }
    if (known.length === 0) throw new Error(`loading Gateway ${ns}/${name}: an object came without its content`);
    known = []; // one was no longer kept: read them all
  }
  const sourcePosition = Number(row.xmin) * TX_SHIFT - 1;
  const deps = new Set<string>();
  const world: World = { gatewayClasses: [], gateways: [], routes: [], referenceGrants: [], namespaces: [], services: [], endpointSlices: [], secrets: [], configMaps: [] };
  const gateway = row.gateway ? inReadingOrder(row.gateway) : null;
  const previousGatewayStatus = row.gateway_status ?? undefined;
  const previousParts = new Map(parts!);

  if (!gateway) return { world, gateway, sourcePosition, deps: [], previousParts, previousGatewayStatus };
  world.gateways.push((previousGatewayStatus ? { ...gateway, status: previousGatewayStatus } : gateway) as never);
  if (gateway.spec?.gatewayClassName && row.class) world.gatewayClasses.push(inReadingOrder(row.class) as never);

  // Routes naming this Gateway: the GIN index narrows by name, the namespace is checked here.
  for (const r of routes!.map((o) => inReadingOrder(o))) {
    const names = (r.spec?.parentRefs ?? []).some((p: Ref) => p && p.name === name && (p.namespace ?? r.metadata.namespace) === ns
      && (p.group ?? GROUP) === GROUP && (p.kind ?? 'Gateway') === 'Gateway');
    if (!names) continue;
    const prev = previousParts.get(`${r.kind}/${r.metadata.namespace}/${r.metadata.name}`);
    world.routes.push((prev ? { ...r, status: prev } : r) as never);
  }

  world.namespaces.push(...rows(row.namespaces));
  const usesSelector = (gateway.spec?.listeners ?? []).some((l: any) => l?.allowedRoutes?.namespaces?.from === 'Selector');
  if (usesSelector) deps.add('Namespace/*');

  // Backends of the routes, and the namespaces they reach into.
  const grantNamespaces = new Set<string>();
  const serviceKeys = new Set<string>();
  for (const r of world.routes) {
    const rns = r.metadata.namespace ?? '';
    for (const b of backendRefsOf(r)) {
      if (!b.name) continue;
      const bns = b.namespace ?? rns;
      if (bns !== rns) grantNamespaces.add(bns);
      if ((b.group ?? '') === '' && (b.kind ?? 'Service') === 'Service') serviceKeys.add(`${bns}/${b.name}`);
    }
  }
  for (const k of serviceKeys) {
    deps.add(`Service/${k}`);
    deps.add(`EndpointSlice/${k}`);
  }
  world.services.push(...rows(services!).filter((o: K8sObject) => serviceKeys.has(`${o.metadata.namespace}/${o.metadata.name}`)));
  world.endpointSlices.push(...rows(slices!).filter((o: K8sObject) => serviceKeys.has(`${o.metadata.namespace}/${o.metadata.labels?.[SVC_LABEL]}`)));

  // Listener references: certificates (Secrets, with their data) and CA bundles (ConfigMaps).
  const refs = gatewayRefs(gateway);
  const secretKeys = new Set(refs.secrets.filter((r) => r.name).map((r) => `${r.namespace ?? ns}/${r.name}`));
  const cmKeys = new Set(refs.configMaps.filter((r) => r.name).map((r) => `${r.namespace ?? ns}/${r.name}`));
  for (const r of [...refs.secrets, ...refs.configMaps]) if ((r.namespace ?? ns) !== ns) grantNamespaces.add(r.namespace!);
  for (const k of secretKeys) deps.add(`Secret/${k}`);
  for (const r of row.secrets) {
    if (!secretKeys.has(`${r.object.metadata.namespace}/${r.object.metadata.name}`)) continue;
    const { dataDigest: _d, ...rest } = r.object;
    world.secrets.push(inReadingOrder({ ...rest, data: r.data ?? {} }) as never);
  }
  for (const k of cmKeys) deps.add(`ConfigMap/${k}`);
  world.configMaps.push(...rows(row.config_maps).filter((o: K8sObject) => cmKeys.has(`${o.metadata.namespace}/${o.metadata.name}`)));
  for (const g of grantNamespaces) deps.add(`ReferenceGrant/${g}`);
  world.referenceGrants.push(...rows(row.grants).filter((o: K8sObject) => grantNamespaces.has(o.metadata.namespace ?? '')));
  return { world, gateway, sourcePosition, deps: [...deps], previousParts, previousGatewayStatus };
}
