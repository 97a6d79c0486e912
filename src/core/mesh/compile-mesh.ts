// The mesh table of one client namespace: for every Service port, the routes that govern what
// clients in that namespace send to it, compiled as the Gateway table is. Each Service port is
// compiled as a listener of its own (no hostname: GEP-1294 ignores route hostnames), so that the
// Gateway pipeline's precedence ladder (precedence/order.ts) and rule compiler (compile/) are the
// mesh's too; the table's listeners are then read back into Service ports. Pure and deterministic.
import type { Gateway, Route, Service, ServicePort } from '../model/objects';
import type { AttachedRoute, BackendResolution, GatewayAttachment, ListenerAttachment, World } from '../model/world';
import { resolveBackendRef, type BackendRefInput } from '../refs/backends';
import { cmp, viewOf, type WorldView } from '../refs/lookup';
import { orderGateway } from '../precedence/order';
import { compileTable } from '../compile/compile-gateway';
import { compileBackend } from '../compile/backends';
import { TranslationContext } from '../translate/context';
import { clusterIPsOf, groupOf, meshParentOutcomes, type MeshParentOutcome } from './parents';
import { DEFAULT_CLUSTER_DOMAIN, MESH_TABLE_FORMAT, type MeshRouteKind, type MeshService, type MeshServicePort, type MeshTable } from './types';

export interface MeshCompileOptions {
  /** CLUSTER_DOMAIN (default cluster.local) */
  clusterDomain?: string;
  /** the parent outcomes, when the caller already has them (they do not depend on the client) */
  outcomes?: readonly MeshParentOutcome[];
}

/**
 * How a backendRef of a mesh route resolves: as for a Gateway route, except that a reference to
 * another namespace needs no ReferenceGrant (GEP-1294: mesh routes augment Services every client
 * can already reach, they expose nothing new).
 */
export function meshBackendResolver(view: WorldView): (route: Route, ref: BackendRefInput) => BackendResolution {
  return (route, ref) => {
    const routeNs = route.metadata?.namespace ?? '';
    const target = ref?.namespace ?? routeNs;
    const as = { kind: route.kind, metadata: { namespace: target, name: route.metadata?.name ?? '' } } as Route;
    return resolveBackendRef(view, as, { ...ref, namespace: target });
  };
}

/** A Service port's own endpoints, as the backend a request takes when no route governs the port. */
export function serviceBackend(view: WorldView, svc: Service, sp: ServicePort): BackendResolution {
  const ns = svc.metadata.namespace ?? '';
  const kind = (sp.protocol ?? 'TCP') === 'UDP' ? 'UDPRoute' : 'HTTPRoute';
  const as = { kind, metadata: { namespace: ns, name: svc.metadata.name } } as Route;
  return resolveBackendRef(view, as, { group: '', kind: 'Service', name: svc.metadata.name, namespace: ns, port: sp.port });
}

/** The listener name a Service port is compiled under (unique in one mesh table). */
export function portListenerName(ns: string, name: string, port: number): string {
  return `${ns}/${name}:${port}`;
}

/** The accepted outcomes that govern one Service port for clients in `clientNs`, and whether they are consumer routes. */
export function governing(outcomes: readonly MeshParentOutcome[], clientNs: string): (ns: string, name: string, port: number) => { consumer: boolean; list: MeshParentOutcome[] } {
  const byPort = new Map<string, MeshParentOutcome[]>();
  for (const o of outcomes) {
    if (!o.accepted) continue;
    // consumer routes of other namespaces never apply to these clients
    if (o.consumer && (o.route.metadata.namespace ?? '') !== clientNs) continue;
    for (const port of o.ports) {
      const k = [o.serviceNamespace, o.serviceName, port].join('|');
      (byPort.get(k) ?? byPort.set(k, []).get(k)!).push(o);
    }
  }
  return (ns, name, port) => {
    const all = byPort.get([ns, name, port].join('|')) ?? [];
    const consumers = all.filter((o) => o.consumer);
    // GEP-1294: clients of a namespace with consumer routes for the Service use those, not the producer's
    return consumers.length ? { consumer: true, list: consumers } : { consumer: false, list: all.filter((o) => groupOf(o) === 'producer') };
  };
}

export function compileMesh(world: World, clientNs: string, opts: MeshCompileOptions = {}, ctx = new TranslationContext()): MeshTable {
  const view = viewOf(world, ctx);
  const outcomes = opts.outcomes ?? meshParentOutcomes(view);
  const govern = governing(outcomes, clientNs);
  const services = [...world.services].sort((a, b) => cmp(a.metadata.namespace ?? '', b.metadata.namespace ?? '') || cmp(a.metadata.name, b.metadata.name));

  const listeners: ListenerAttachment[] = [];
  const portsOf: { svc: Service; ports: { sp: ServicePort; listener?: number; kind?: MeshRouteKind; consumer: boolean }[] }[] = [];
  for (const svc of services) {
    const ns = svc.metadata.namespace ?? '';
    const ports = (svc.spec?.ports ?? []).map((sp) => {
      const { consumer, list } = govern(ns, svc.metadata.name, sp.port);
      if (list.length === 0) return { sp, consumer: false };
      const seen = new Set<Route>();
      const routes: AttachedRoute[] = [];
      for (const o of list) {
        if (seen.has(o.route)) continue;
        seen.add(o.route);
        routes.push({ kind: o.kind as AttachedRoute['kind'], route: o.route, parentRefIndex: o.parentRefIndex, hostnames: [] });
      }
      listeners.push({ listener: { name: portListenerName(ns, svc.metadata.name, sp.port), port: sp.port, protocol: 'HTTP' }, valid: true, routes } as ListenerAttachment);
      return { sp, listener: listeners.length - 1, kind: list[0].kind as MeshRouteKind, consumer };
    });
    portsOf.push({ svc, ports });
  }

  // the Gateway pipeline's steps 4 and 5 over the Service ports, as listeners of a Gateway of the mesh
  const gateway = { apiVersion: 'gateway.networking.k8s.io/v1', kind: 'Gateway', metadata: { namespace: clientNs, name: 'mesh' }, spec: { gatewayClassName: '', listeners: [] } } as unknown as Gateway;
  const attachment: GatewayAttachment = { gateway, listeners, rejected: [] };
  const table = compileTable(view, attachment, orderGateway(ctx, attachment), { resolveBackendRef: meshBackendResolver(view), includeUnattached: false });

  const out: MeshService[] = portsOf.map(({ svc, ports }) => ({
    namespace: svc.metadata.namespace ?? '',
    name: svc.metadata.name,
    clusterIPs: clusterIPsOf(svc),
    ports: ports.map(({ sp, listener, kind, consumer }): MeshServicePort => {
      const p: MeshServicePort = { port: sp.port, ...(sp.name ? { name: sp.name } : {}), protocol: sp.protocol ?? 'TCP', ...(sp.appProtocol ? { appProtocol: sp.appProtocol } : {}) } as MeshServicePort;
      if (listener !== undefined && kind) {
        const l = table.listeners[listener];
        p.routeKind = kind;
        p.consumer = consumer;
        if (kind === 'HTTPRoute') p.httpRoutes = l.httpRoutes ?? [];
        else p.grpcRoutes = l.grpcRoutes ?? [];
      }
      p.backend = compileBackend(ctx, serviceBackend(view, svc, sp));
      return p;
    }),
  }));
  return { format: MESH_TABLE_FORMAT, namespace: clientNs, clusterDomain: opts.clusterDomain ?? DEFAULT_CLUSTER_DOMAIN, services: out, routes: table.routes, rules: table.rules };
}
