// Resolve for the mesh: what a client of the table's namespace sending a request to a Service port
// gets, evaluated exactly as the Gateway resolve evaluates a listener. A Service port is turned into
// a one-listener table (portTable) whose entries are the port's; the same table is what the
// reference proxy's --mesh role routes with, so resolve and traffic cannot disagree.
import { TABLE_FORMAT, type CompiledHTTPEntry, type CompiledListener, type CompiledRoute, type CompiledRule, type CompiledTable } from '../compile/types';
import { decide, resolve, type Decision, type ResolveContext, type ResolveRequest, type ResolveResponse } from '../resolve';
import { portListenerName } from './compile-mesh';
import type { MeshTarget } from './lookup';
import type { MeshTable } from './types';

/** The Service port as a Gateway table of one HTTP listener; `fallback` tells whether its only rule is the Service's own endpoints. */
export function portTable(table: MeshTable, target: MeshTarget): { table: CompiledTable; fallback: boolean } {
  const { service, port } = target;
  const listener: CompiledListener = { name: portListenerName(service.namespace, service.name, port.port), port: port.port, protocol: 'HTTP', valid: true };
  const head = { format: TABLE_FORMAT, gateway: { namespace: table.namespace, name: 'mesh' }, infrastructure: { labels: {}, annotations: {} } };
  if (port.routeKind) {
    listener.httpRoutes = port.httpRoutes ?? [];
    listener.grpcRoutes = port.grpcRoutes ?? [];
    return { table: { ...head, listeners: [listener], routes: table.routes, rules: table.rules, unattached: [] } as CompiledTable, fallback: false };
  }
  // no route governs the port: one rule that matches everything and forwards to the Service itself
  const route: CompiledRoute = { kind: 'HTTPRoute', namespace: service.namespace, name: service.name };
  const rule: CompiledRule = { route: 0, index: 0, filters: [], backends: [port.backend] };
  const any: CompiledHTTPEntry = { hostname: '', rule: 0, matchIndex: 0, match: { path: { type: 'PathPrefix', value: '/' } } };
  listener.httpRoutes = [any];
  listener.grpcRoutes = [{ hostname: '', rule: 0, matchIndex: 0, match: {} }];
  return { table: { ...head, listeners: [listener], routes: [route], rules: [rule], unattached: [] } as CompiledTable, fallback: true };
}

/** The request as the port's table reads it: a gRPC call to a port governed by HTTPRoutes is an HTTP/2 POST those routes match. */
function requestFor(target: MeshTarget, request: ResolveRequest): ResolveRequest {
  const protocol = String(request.protocol ?? 'HTTP').toUpperCase();
  const asHTTP = protocol === 'GRPC' && target.port.routeKind === 'HTTPRoute';
  return { ...request, port: target.port.port, protocol: asHTTP ? 'HTTP' : protocol === 'GRPC' ? 'GRPC' : 'HTTP', ...(asHTTP ? { method: 'POST' } : {}) };
}

function finish<T extends ResolveResponse>(res: T, target: MeshTarget, fallback: boolean, clientNs: string): T {
  const what = `Service "${target.service.namespace}/${target.service.name}" port ${target.port.port}`;
  const words = [
    `The client connects to ${what}; the Service is chosen by the address connected to, never by the Host header.`,
  ];
  if (fallback) {
    words.push(`No route governs ${what} for clients in namespace "${clientNs}": the request goes to the Service's own endpoints.`);
    return { ...res, route: null, ruleIndex: null, decidedBy: null, matchIndex: undefined, explanation: [...words, ...res.explanation.filter((w) => !/matches|No other attached rule/.test(w))] };
  }
  const p = target.port;
  words.push(p.consumer
    ? `Consumer routes (${p.routeKind}s in "${clientNs}") govern ${what} for clients in "${clientNs}", in place of the producer's.`
    : `The producer's ${p.routeKind}s (in "${target.service.namespace}") govern ${what} for clients in "${clientNs}".`);
  return { ...res, explanation: [...words, ...res.explanation] };
}

/** Where the request of a client in the table's namespace to this Service port goes, and why. */
export function resolveMesh(table: MeshTable, target: MeshTarget, request: ResolveRequest, context: ResolveContext = {}): ResolveResponse {
  const { table: t, fallback } = portTable(table, target);
  const res = finish(resolve(t, requestFor(target, request), context), target, fallback, table.namespace);
  if (res.matchIndex === undefined) delete res.matchIndex;
  return res;
}

/** The proxy's decision for the same request (resolve's evaluation, with what forwarding needs). */
export function decideMesh(table: MeshTable, target: MeshTarget, request: ResolveRequest, context: ResolveContext = {}): Decision {
  const { table: t } = portTable(table, target);
  return decide(t, requestFor(target, request), context);
}
