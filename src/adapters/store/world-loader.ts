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

type Tx = Pick<Database['prisma'], '$queryRawUnsafe' | '$executeRawUnsafe'>;

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

/** Rows of the projection are objects that passed validation on write: the world's types hold. */
function rows<T = any>(objs: any[]): T[] {
  return objs.map((r) => inReadingOrder(r.object));
}

/** `owner`: the owner of this controller's route status parts for this Gateway; `selfOwner`: of the Gateway's own. */
export async function loadGatewayWorld(db: Database, ns: string, name: string, owner: string, selfOwner: string): Promise<GatewayWorld> {
  return db.prisma.$transaction(async (tx: Tx) => {
    const [{ xmin }] = await tx.$queryRawUnsafe<{ xmin: bigint }[]>(`SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint AS xmin`);
    const sourcePosition = Number(xmin) * TX_SHIFT - 1;
    const deps = new Set<string>();
    const world: World = { gatewayClasses: [], gateways: [], routes: [], referenceGrants: [], namespaces: [], services: [], endpointSlices: [], secrets: [], configMaps: [] };

    const gwRows = await tx.$queryRawUnsafe<any[]>(
      `SELECT o.object, (SELECT sp.status FROM status_parts sp WHERE sp.stream = o.stream AND sp.owner = $2) AS status
       FROM objects o WHERE o.stream = $1 AND NOT o.deleted`, gatewayStream(ns, name), selfOwner);
    const gateway = gwRows[0] ? inReadingOrder(gwRows[0].object as K8sObject) : null;
    const previousGatewayStatus = gwRows[0]?.status ?? undefined;

    const partRows = await tx.$queryRawUnsafe<{ stream: string; status: { parents?: unknown[] } }[]>(
      `SELECT stream, status FROM status_parts WHERE owner = $1`, owner);
    const previousParts = new Map(partRows.map((r) => [r.stream, r.status]));

    if (!gateway) return { world, gateway, sourcePosition, deps: [], previousParts, previousGatewayStatus };
    world.gateways.push((previousGatewayStatus ? { ...gateway, status: previousGatewayStatus } : gateway) as never);

    const className = gateway.spec?.gatewayClassName;
    if (className) world.gatewayClasses.push(...rows(await tx.$queryRawUnsafe<any[]>(
      `SELECT object FROM objects WHERE stream = $1 AND NOT deleted`, `GatewayClass//${className}`)));

    // Routes naming this Gateway: the GIN index narrows by name, the namespace is checked here.
    const candidates = rows<K8sObject>(await tx.$queryRawUnsafe<any[]>(
      `SELECT object FROM objects WHERE kind = ANY($1::text[]) AND NOT deleted
         AND object->'spec'->'parentRefs' @> $2::jsonb`,
      [...ROUTE_KINDS], JSON.stringify([{ name }])));
    for (const r of candidates) {
      const names = (r.spec?.parentRefs ?? []).some((p: Ref) => p && p.name === name && (p.namespace ?? r.metadata.namespace) === ns
        && (p.group ?? GROUP) === GROUP && (p.kind ?? 'Gateway') === 'Gateway');
      if (!names) continue;
      const prev = previousParts.get(`${r.kind}/${r.metadata.namespace}/${r.metadata.name}`);
      world.routes.push((prev ? { ...r, status: prev } : r) as never);
    }

    world.namespaces.push(...rows(await tx.$queryRawUnsafe<any[]>(`SELECT object FROM objects WHERE kind = 'Namespace' AND NOT deleted`)));
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
    if (serviceKeys.size) {
      const keys = [...serviceKeys];
      for (const k of keys) {
        deps.add(`Service/${k}`);
        deps.add(`EndpointSlice/${k}`);
      }
      world.services.push(...rows(await tx.$queryRawUnsafe<any[]>(
        `SELECT object FROM objects WHERE stream = ANY($1::text[]) AND NOT deleted`, keys.map((k) => `Service/${k}`))));
      world.endpointSlices.push(...rows(await tx.$queryRawUnsafe<any[]>(
        `SELECT o.object FROM objects o JOIN unnest($1::text[], $2::text[]) AS k(ns, svc)
           ON o.kind = 'EndpointSlice' AND o.namespace = k.ns AND o.object->'metadata'->'labels'->>'${SVC_LABEL}' = k.svc
         WHERE NOT o.deleted`,
        keys.map((k) => k.split('/')[0]), keys.map((k) => k.split('/')[1]))));
    }

    // Listener references: certificates (Secrets, with their data) and CA bundles (ConfigMaps).
    const refs = gatewayRefs(gateway);
    const secretKeys = refs.secrets.filter((r) => r.name).map((r) => `${r.namespace ?? ns}/${r.name}`);
    const cmKeys = refs.configMaps.filter((r) => r.name).map((r) => `${r.namespace ?? ns}/${r.name}`);
    for (const r of [...refs.secrets, ...refs.configMaps]) if ((r.namespace ?? ns) !== ns) grantNamespaces.add(r.namespace!);
    if (secretKeys.length) {
      for (const k of secretKeys) deps.add(`Secret/${k}`);
      const secretRows = await tx.$queryRawUnsafe<any[]>(
        `SELECT o.object, d.data FROM objects o LEFT JOIN secret_data d ON d.stream = o.stream
         WHERE o.stream = ANY($1::text[]) AND NOT o.deleted`, secretKeys.map((k) => `Secret/${k}`));
      for (const r of secretRows) {
        const { dataDigest: _d, ...rest } = r.object;
        world.secrets.push(inReadingOrder({ ...rest, data: r.data ?? {} }) as never);
      }
    }
    if (cmKeys.length) {
      for (const k of cmKeys) deps.add(`ConfigMap/${k}`);
      world.configMaps.push(...rows(await tx.$queryRawUnsafe<any[]>(
        `SELECT object FROM objects WHERE stream = ANY($1::text[]) AND NOT deleted`, cmKeys.map((k) => `ConfigMap/${k}`))));
    }
    if (grantNamespaces.size) {
      for (const g of grantNamespaces) deps.add(`ReferenceGrant/${g}`);
      world.referenceGrants.push(...rows(await tx.$queryRawUnsafe<any[]>(
        `SELECT object FROM objects WHERE kind = 'ReferenceGrant' AND namespace = ANY($1::text[]) AND NOT deleted`, [...grantNamespaces])));
    }
    return { world, gateway, sourcePosition, deps: [...deps], previousParts, previousGatewayStatus };
  }, { timeout: 60_000, maxWait: 30_000, ...(db.embedded ? {} : { isolationLevel: 'RepeatableRead' as const }) });
}
