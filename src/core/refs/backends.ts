// backendRef resolution. The checks run in the order that lets the most telling reason win:
// permission first (a reference into another namespace without a ReferenceGrant is RefNotPermitted
// even when the target does not exist: the referrer may not learn what is there), then the kind
// (only core Services), then existence and port, then the port's protocol (a UDPRoute needs a UDP
// port, every other kind a TCP one: UnsupportedProtocol). A Service without ready endpoints still resolves;
// the backend is flagged NoEndpoints so that its share of traffic is rejected.
import type { BackendResolution } from '../model/world';
import type { BackendRef, Route } from '../model/objects';
import { referenceAllowed } from './grants';
import { SharedTable } from '../model/shared-table';
import { endpointsFor, servicePortFor } from './endpoints';
import { GATEWAY_GROUP, backendMemo, key, refName, type WorldView } from './lookup';
import { BackendReason, RouteReason } from '../status/reasons';

/** A backendRef as written: defaults (group "", kind Service, weight 1) and even the name may be missing. */
export type BackendRefInput = Partial<BackendRef>;

export function resolveBackendRef(view: WorldView, route: Route, backendRef: BackendRefInput): BackendResolution {
  if (!backendRef || typeof backendRef !== 'object') return resolve(view, route, backendRef);
  // what a resolution reads off the ref and its route: the same against the same grants, Services
  // and slices resolve the same way, and share one answer (a Gateway of 50,000 routes onto a few
  // dozen Services held one a backendRef, some 180 bytes each)
  const port = typeof backendRef.port === 'number' ? String(backendRef.port) : null;
  const weight = typeof backendRef.weight === 'number' ? String(backendRef.weight) : '1';
  const key = JSON.stringify([route.kind, route.metadata.namespace ?? '', backendRef.group ?? '', backendRef.kind ?? 'Service', backendRef.namespace ?? null, backendRef.name ?? '', port, weight]);
  const memo = backendMemo<SharedTable<string, BackendResolution>>(view, 'resolutions');
  let shared = memo.get(RESOLUTIONS);
  if (!shared) memo.set(RESOLUTIONS, (shared = new SharedTable(RESOLUTIONS_LIMIT)));
  return shared.get(key, () => resolve(view, route, backendRef));
}

/** the key of the one table of resolutions in a backend memo (see backendMemo) */
const RESOLUTIONS = Object.freeze({});
// the table lives as long as the grants, Services and slices it was made for: references of routes
// deleted since stay in it, so it is emptied when full (what was resolved is made again when met)
const RESOLUTIONS_LIMIT = 65_536;

function resolve(view: WorldView, route: Route, backendRef: BackendRefInput | undefined): BackendResolution {
  const group = backendRef?.group ?? '';
  const kind = backendRef?.kind ?? 'Service';
  const routeNs = route.metadata.namespace ?? '';
  const namespace = backendRef?.namespace ?? routeNs;
  const name = backendRef?.name ?? '';
  const port = typeof backendRef?.port === 'number' ? backendRef.port : undefined;
  const weight = typeof backendRef?.weight === 'number' ? backendRef.weight : 1;
  const base = { group, kind, namespace, name, weight, endpoints: [] as BackendResolution['endpoints'] };
  if (port !== undefined) (base as BackendResolution).port = port;
  const invalid = (reason: string, message: string): BackendResolution => ({ ...base, valid: false, reason, message });

  if (namespace !== routeNs && !referenceAllowed(view, { group: GATEWAY_GROUP, kind: route.kind, namespace: routeNs }, { group, kind, namespace, name }))
    return invalid(RouteReason.RefNotPermitted,
      `${what(group, kind, namespace, name)} is in another namespace and no ReferenceGrant in "${namespace}" allows references from ${route.kind}s in "${routeNs}"`);
  if (group !== '' || kind !== 'Service')
    return invalid(RouteReason.InvalidKind, `${what(group, kind, namespace, name)} is not supported: backends must be core Services`);
  const service = view.index.services.get(key(namespace, name));
  if (!service) return invalid(RouteReason.BackendNotFound, `Service "${refName(namespace, name)}" does not exist`);
  if (service.spec?.type === 'ExternalName')
    return invalid(RouteReason.InvalidKind, `Service "${refName(namespace, name)}" is of type ExternalName, which is not supported`);
  if (port === undefined)
    return invalid(RouteReason.BackendNotFound, `the reference to Service "${refName(namespace, name)}" has no port; a Service backend needs one`);
  const transport = route.kind === 'UDPRoute' ? 'UDP' : 'TCP';
  const servicePort = servicePortFor(service, port, transport);
  if (!servicePort) return invalid(RouteReason.BackendNotFound, `Service "${refName(namespace, name)}" has no port ${port}`);
  const portProtocol = servicePort.protocol ?? 'TCP';
  // every other route kind rides on TCP; a port of another transport could never carry its traffic
  if (portProtocol !== transport)
    return invalid(RouteReason.UnsupportedProtocol,
      `Service "${refName(namespace, name)}" port ${port} is ${portProtocol}, but a ${route.kind} needs a ${transport} port`);

  const endpoints = endpointsFor(view, service, servicePort);
  const out = base as BackendResolution;
  out.valid = endpoints.length > 0;
  out.endpoints = endpoints;
  if (servicePort.appProtocol) out.appProtocol = servicePort.appProtocol;
  if (endpoints.length === 0) {
    out.reason = BackendReason.NoEndpoints;
    out.message = `Service "${refName(namespace, name)}" port ${port} has no ready endpoints`;
  }
  return out;
}

function what(group: string, kind: string, namespace: string, name: string): string {
  return `${kind} "${refName(namespace, name)}"${group ? ` (group ${group})` : ''}`;
}

/** Reasons that make a route's ResolvedRefs False (NoEndpoints does not: the reference resolves). */
export function isRefFailure(reason: string | undefined): boolean {
  return reason === RouteReason.RefNotPermitted || reason === RouteReason.InvalidKind
    || reason === RouteReason.BackendNotFound || reason === RouteReason.UnsupportedProtocol;
}
