// Mesh attachment (GEP-1294): which route parentRefs name Services, whether each is accepted, and,
// per Service port, which group of routes (producer, or the consumer routes of one namespace) and
// which kind governs it. Independent of the client: the client namespace only picks a group.
import type { ParentReference, Route, Service } from '../model/objects';
import { key, refName, type WorldView } from '../refs/lookup';
import { RouteReason } from '../status/reasons';
import type { MeshRouteKind } from './types';

/** The route kinds that attach to Services, in GEP-1294's order of specificity (first wins). */
export const MESH_KIND_ORDER: readonly MeshRouteKind[] = ['GRPCRoute', 'HTTPRoute'];

/** A Gateway API reason GEP-1294 adds for the route kinds that lose a Service port to another. */
export const CONFLICTED = 'Conflicted';

/** Does this parentRef name a Service (core group, kind Service)? */
export function isServiceParent(p: Partial<ParentReference> | undefined): boolean {
  return !!p && (p.group ?? 'gateway.networking.k8s.io') === '' && p.kind === 'Service';
}

/** "ns/name" of every Service the route names as a parent (the dependency model's edges). */
export function servicesNamedBy(route: { metadata: { namespace?: string }; spec?: { parentRefs?: Partial<ParentReference>[] } }): string[] {
  const ns = route.metadata.namespace ?? '';
  const out = new Set<string>();
  for (const p of route.spec?.parentRefs ?? []) if (isServiceParent(p) && p.name) out.add(`${p.namespace ?? ns}/${p.name}`);
  return [...out];
}

/** The cluster IPs of a Service: none for a headless or ExternalName Service, or one never given an address. */
export function clusterIPsOf(svc: Service): string[] {
  const spec = svc.spec ?? ({} as NonNullable<Service['spec']>);
  if (spec.type === 'ExternalName') return [];
  const ips = Array.isArray(spec.clusterIPs) && spec.clusterIPs.length ? spec.clusterIPs : spec.clusterIP ? [spec.clusterIP] : [];
  return ips.filter((ip): ip is string => typeof ip === 'string' && ip !== '' && ip !== 'None');
}

/** One parentRef of one route that names a Service, and what became of it. */
export interface MeshParentOutcome {
  route: Route;
  kind: string;
  parentRefIndex: number;
  /** as status.parents[].parentRef echoes it: group and kind as given, namespace filled in */
  parentRef: ParentReference;
  serviceNamespace: string;
  serviceName: string;
  /** the route's namespace differs from the Service's */
  consumer: boolean;
  accepted: boolean;
  reason: string;
  message: string;
  /** the Service ports the parentRef selects (all of them when it names none); empty when refused */
  ports: number[];
}

/** Every Service parentRef of every route, in route then parentRef order, with its verdict before kind conflicts. */
export function meshParentOutcomes(view: WorldView): MeshParentOutcome[] {
  const out: MeshParentOutcome[] = [];
  for (const route of view.world.routes) {
    const refs: Partial<ParentReference>[] = route.spec?.parentRefs ?? [];
    refs.forEach((p, i) => {
      if (!isServiceParent(p)) return;
      out.push(outcomeOf(view, route, p, i));
    });
  }
  settleConflicts(out);
  return out;
}

function outcomeOf(view: WorldView, route: Route, p: Partial<ParentReference>, parentRefIndex: number): MeshParentOutcome {
  const routeNs = route.metadata.namespace ?? '';
  const serviceNamespace = p.namespace ?? routeNs;
  const serviceName = String(p.name ?? '');
  const parentRef = { ...p, group: '', kind: 'Service', namespace: serviceNamespace, name: serviceName } as ParentReference;
  const base = {
    route, kind: route.kind, parentRefIndex, parentRef, serviceNamespace, serviceName, consumer: serviceNamespace !== routeNs,
  };
  const refuse = (reason: string, message: string): MeshParentOutcome => ({ ...base, accepted: false, reason, message, ports: [] });
  const svcName = `Service "${refName(serviceNamespace, serviceName)}"`;
  if (!(MESH_KIND_ORDER as readonly string[]).includes(route.kind))
    return refuse(RouteReason.NotAllowedByListeners, `a ${route.kind} cannot attach to a Service in this mesh: only HTTPRoute and GRPCRoute do`);
  if (p.sectionName !== undefined)
    return refuse(RouteReason.UnsupportedValue, `sectionName is not supported on a Service parentRef: name the port with port`);
  const svc = view.index.services.get(key(serviceNamespace, serviceName));
  if (!svc) return refuse(RouteReason.NoMatchingParent, `${svcName} does not exist`);
  if (clusterIPsOf(svc).length === 0)
    return refuse(RouteReason.NoMatchingParent, `${svcName} has no cluster IP (headless, ExternalName, or none assigned): it has no frontend a route can govern`);
  const servicePorts = (svc.spec?.ports ?? []).filter((sp) => (sp.protocol ?? 'TCP') === 'TCP').map((sp) => sp.port);
  if (p.port !== undefined && p.port !== null) {
    if (!servicePorts.includes(p.port)) return refuse(RouteReason.NoMatchingParent, `${svcName} has no TCP port ${p.port}`);
    return { ...base, accepted: true, reason: RouteReason.Accepted, message: `Attached to ${svcName} port ${p.port}`, ports: [p.port] };
  }
  if (servicePorts.length === 0) return refuse(RouteReason.NoMatchingParent, `${svcName} has no TCP port`);
  return { ...base, accepted: true, reason: RouteReason.Accepted, message: `Attached to ${svcName}`, ports: [...new Set(servicePorts)] };
}

/** Which group of routes a route belongs to for a Service: the producer's, or one consumer namespace's. */
export function groupOf(o: Pick<MeshParentOutcome, 'route' | 'consumer'>): string {
  return o.consumer ? `consumer:${o.route.metadata.namespace ?? ''}` : 'producer';
}

/**
 * GEP-1294: where routes of different kinds of one group bind the same Service port, the most
 * specific kind (GRPCRoute, then HTTPRoute) governs it; a parentRef whose every port is taken by
 * another kind is refused (Conflicted). One that keeps some of its ports stays accepted for those.
 */
function settleConflicts(outcomes: MeshParentOutcome[]): void {
  const winner = new Map<string, MeshRouteKind>();
  for (const o of outcomes) {
    if (!o.accepted) continue;
    for (const port of o.ports) {
      const k = portGroupKey(o.serviceNamespace, o.serviceName, port, groupOf(o));
      const have = winner.get(k);
      const kind = o.kind as MeshRouteKind;
      if (!have || MESH_KIND_ORDER.indexOf(kind) < MESH_KIND_ORDER.indexOf(have)) winner.set(k, kind);
    }
  }
  for (const o of outcomes) {
    if (!o.accepted) continue;
    const kept = o.ports.filter((port) => winner.get(portGroupKey(o.serviceNamespace, o.serviceName, port, groupOf(o))) === o.kind);
    if (kept.length === o.ports.length) continue;
    if (kept.length === 0) {
      const by = winner.get(portGroupKey(o.serviceNamespace, o.serviceName, o.ports[0], groupOf(o)));
      Object.assign(o, {
        accepted: false, reason: CONFLICTED, ports: [],
        message: `${by}s bind Service "${refName(o.serviceNamespace, o.serviceName)}" on the same port${o.ports.length > 1 ? 's' : ''}, and a ${by} takes precedence over a ${o.kind} (GEP-1294)`,
      });
    } else {
      o.ports = kept;
    }
  }
}

export function portGroupKey(ns: string, name: string, port: number, group: string): string {
  return [ns, name, port, group].join('|');
}
